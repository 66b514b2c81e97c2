"""A node configuration for tests and benchmarks that talk to `volent mock-model`.

write_mock_config(folder, mock_port, allow="", tool_keys=()) writes
FOLDER/mock.key (mode 0600) and FOLDER/volent.yaml: data_dir `data`, the
mock's port on 127.0.0.1/32 under the capability `model.mock` with that key
in model_keys, the extra allowlist entries `allow` (YAML text indented as
list items under `allow:`), and `tool_keys` given as (name, base64 public
key) pairs. Returns the configuration's path.
"""
import os

MOCK_KEY = "mock-key"


def write_mock_config(folder, mock_port, allow="", tool_keys=()):
    key_file = os.path.join(folder, "mock.key")
    with open(os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
        f.write(MOCK_KEY + "\n")
    text = f"""apiVersion: volent/v1
kind: NodeConfig
data_dir: data
egress:
  allow:
    - capability: model.mock
      scheme: http
      cidr: 127.0.0.1/32
      port: {mock_port}
{allow}model_keys:
  - capability: model.mock
    key_file: mock.key
"""
    if tool_keys:
        text += "tool_keys:\n" + "".join(f"  - name: {name}\n    public_key: {key}\n" for name, key in tool_keys)
    config = os.path.join(folder, "volent.yaml")
    with open(config, "w") as f:
        f.write(text)
    return config
