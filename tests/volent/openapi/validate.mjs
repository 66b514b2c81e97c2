// Checks an OpenAPI document with @seriousme/openapi-schema-validator (the
// OpenAPI Initiative's published JSON Schema for the version, plus a check
// that every $ref resolves) and prints the verdict.
//
//   node validate.mjs FILE [--version 3.1] [--base URL]
//
// With --base, references to other documents (a $ref whose part before `#`
// is not empty, e.g. "/v1/schemas/agent") are fetched from URL and given to
// the validator (addSpecRef), so they are checked to resolve too; without
// it such a reference is an error (the validator resolves only what it has).
//
// Exit 0 and `valid: OpenAPI V, N paths, M operations` when the document is
// valid and of the wanted version; exit 1 with the validator's errors
// otherwise.
import { readFileSync } from "node:fs";
import { argv, exit } from "node:process";
import { Validator } from "@seriousme/openapi-schema-validator";

const file = argv[2];
const wantIndex = argv.indexOf("--version");
const want = wantIndex > 0 ? argv[wantIndex + 1] : "3.1";
const baseIndex = argv.indexOf("--base");
const base = baseIndex > 0 ? argv[baseIndex + 1] : "";
if (!file) {
  console.error("usage: node validate.mjs FILE [--version 3.1] [--base URL]");
  exit(2);
}

let document;
try {
  document = JSON.parse(readFileSync(file, "utf8"));
} catch (e) {
  console.log(`invalid: not a JSON document: ${e.message}`);
  exit(1);
}

// Every $ref of the document whose target is another document.
function externalRefs(node, out = new Set()) {
  if (Array.isArray(node)) node.forEach((v) => externalRefs(v, out));
  else if (node && typeof node === "object") {
    for (const [k, v] of Object.entries(node)) {
      if (k === "$ref" && typeof v === "string" && !v.startsWith("#")) out.add(v.split("#")[0]);
      else externalRefs(v, out);
    }
  }
  return out;
}

const validator = new Validator();
const external = [...externalRefs(document)];
if (base) {
  for (const uri of external) {
    const url = new URL(uri, base);
    let response;
    try {
      // The node answers only authenticated requests: the caller's token, from the environment.
      const token = process.env.VOLENT_TOKEN;
      response = await fetch(url, token ? { headers: { Authorization: `Bearer ${token}` } } : {});
    } catch (e) {
      console.log(`invalid: the reference ${uri} could not be fetched from ${url}: ${e.message}`);
      exit(1);
    }
    const text = await response.text();
    let target;
    try {
      target = JSON.parse(text);
    } catch (e) {
      console.log(`invalid: the reference ${uri} (${url}, HTTP ${response.status}) is not JSON`);
      exit(1);
    }
    if (!response.ok) {
      console.log(`invalid: the reference ${uri} answers HTTP ${response.status}`);
      exit(1);
    }
    await validator.addSpecRef(target, uri);
  }
}
const result = await validator.validate(document);
if (!result.valid) {
  console.log(`invalid: not a valid OpenAPI ${validator.version ?? "(unknown version)"} document (schema or references)`);
  console.log(JSON.stringify(result.errors, null, 2));
  exit(1);
}
if (validator.version !== want) {
  console.log(`invalid: the document is OpenAPI ${validator.specificationVersion}, not ${want}.x`);
  exit(1);
}
// Every $ref must resolve: resolveRefs throws on a dangling one.
try {
  validator.resolveRefs();
} catch (e) {
  console.log(`invalid: a reference does not resolve: ${e.message}`);
  exit(1);
}
const methods = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);
const paths = Object.entries(document.paths ?? {});
const operations = paths.reduce(
  (n, [, item]) => n + Object.keys(item ?? {}).filter((k) => methods.has(k)).length, 0);
console.log(`valid: OpenAPI ${validator.specificationVersion} (validator schema ${validator.version}), ` +
  `${paths.length} paths, ${operations} operations` +
  (external.length ? `; references to other documents resolved: ${external.join(", ")}` : ""));
