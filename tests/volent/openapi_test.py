#!/usr/bin/env python3
"""The OpenAPI document of `volent node` checked by an independent OpenAPI 3.1
validator: @seriousme/openapi-schema-validator (tests/volent/openapi/,
installed by scripts/npm-install.sh), which checks the document against the
OpenAPI Initiative's JSON Schema for its version and that every $ref
resolves (references to other documents, such as the manifest schema, are
fetched from the node).

  tests/volent/openapi_test.py --volent BIN [--config volent.yaml]

Starts `volent node` on a free loopback port with a temporary data folder
(configuration: tests/volent/fixtures/volent.yaml unless given), fetches
/openapi.json and prints the validator's verdict, then stops the node with
SIGTERM. Exit 1 when the document is not a valid OpenAPI 3.1 document;
`skipped: REASON` (exit 0) without node, node_modules or the binary.
"""
import argparse, json, os, shutil, subprocess, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness.binaries import skip_unless_runs  # noqa: E402
from harness.checks import Checks, fail, skip  # noqa: E402
from harness.cleanup import work_folder  # noqa: E402
from harness.http_client import request, token_for  # noqa: E402
from harness.servers import VOLENT_NODE, start_server  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
NPM_DIR = os.path.join(HERE, "openapi")
parser = argparse.ArgumentParser(description="The served OpenAPI document against an OpenAPI 3.1 validator.")
parser.add_argument("--volent", required=True, metavar="BIN")
parser.add_argument("--config", metavar="volent.yaml", default=os.path.join(HERE, "fixtures", "volent.yaml"))
args = parser.parse_args()
if not shutil.which("node"):
    skip("node not found (Node.js >= 20)")
if not os.path.isfile(os.path.join(NPM_DIR, "node_modules", ".ampoule-lock")):
    skip("node_modules missing: run scripts/npm-install.sh")
skip_unless_runs(args.volent, "node")

WORK = work_folder("volent-openapi-")
node = start_server([args.volent, "node", "--config", args.config, "--listen", "127.0.0.1:0",
                     "--data-dir", os.path.join(WORK, "data")], os.path.join(WORK, "stderr"), VOLENT_NODE,
                    stdout_too=False)
url = f"http://{node.host}:{node.port}/openapi.json"
status, _, document = request(node.host, node.port, "GET", "/openapi.json")
if status != 200:
    fail(f"GET {url}: HTTP {status}")
path = os.path.join(WORK, "openapi.json")
with open(path, "wb") as f:
    f.write(document)
print(f"document: {len(document)} bytes from {url}", flush=True)
check = Checks(numbered=False)
env = dict(os.environ, VOLENT_TOKEN=token_for(node.port) or "")
valid = subprocess.run(["node", "validate.mjs", path, "--version", "3.1", "--base", url], cwd=NPM_DIR,
                       env=env).returncode == 0
check("the OpenAPI document is valid OpenAPI 3.1 (@seriousme/openapi-schema-validator)", valid)
doc = json.loads(document)
schemes = (doc.get("components") or {}).get("securitySchemes") or {}
check("the document declares its security schemes: bearer tokens and mutual TLS",
      schemes.get("bearerAuth", {}).get("scheme") == "bearer" and schemes.get("mutualTLS", {}).get("type") == "mutualTLS",
      str(schemes))
ops = [(m, p, op) for p, item in doc.get("paths", {}).items() for m, op in item.items()]
unsecured = [f"{m} {p}" for m, p, op in ops
             if not op.get("security") or op.get("x-volent-role") not in ("reader", "operator", "approver", "admin")
             or "401" not in op.get("responses", {}) or "403" not in op.get("responses", {})]
check(f"each of the {len(ops)} operations names its security, its role and its 401 and 403", not unsecured,
      str(unsecured))
status = node.stop(timeout=30)
check("SIGTERM ends the node with status 0", status == 0, f"exit status {status}")
sys.exit(1 if check.failed else 0)
