// Documents the control API tests share: a node configuration with one
// egress allowlist entry and manifests that pass or fail it.
#pragma once

#include <string>

namespace volent::control::testing {

inline constexpr char kNodeConfig[] = R"(apiVersion: volent/v1
kind: NodeConfig
egress:
  allow:
    - capability: refunds
      scheme: https
      host: api.example.com
)";

// A manifest named `name` whose one tool uses `capability`.
inline std::string AgentYaml(const std::string& name, const std::string& capability = "refunds") {
  return "apiVersion: volent/v1\n"
         "kind: Agent\n"
         "metadata:\n"
         "  name: " + name + "\n"
         "spec:\n"
         "  model:\n"
         "    provider: anthropic\n"
         "    name: claude-test\n"
         "  tools:\n"
         "    - name: refund\n"
         "      kind: http\n"
         "      capability: " + capability + "\n"
         "      http:\n"
         "        method: POST\n"
         "        url: https://api.example.com/refunds\n";
}

inline std::string AgentJson(const std::string& name) {
  return R"({"apiVersion":"volent/v1","kind":"Agent","metadata":{"name":")" + name +
         R"("},"spec":{"model":{"provider":"openai","name":"gpt-test"}}})";
}

}  // namespace volent::control::testing
