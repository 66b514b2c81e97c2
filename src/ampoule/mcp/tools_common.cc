// Pieces the tools share: the inputs maps and their schema, UTF-8 checks,
// and the list of every tool.
#include <set>

#include "ampoule/mcp/tools.h"
#include "ampoule/receipt/base64.h"

namespace ampoule::mcp {

using nlohmann::json;

json FileMapSchema(const char* description) {
  return {{"type", "object"}, {"description", description}, {"additionalProperties", {{"type", "string"}}}};
}

Result<std::vector<NamedBytes>> ReadInputs(const json& arguments) {
  std::vector<NamedBytes> out;
  std::set<std::string> seen;
  for (const char* field : {"inputs", "inputs_base64"}) {
    auto it = arguments.find(field);
    if (it == arguments.end()) continue;
    bool base64 = std::string_view(field) == "inputs_base64";
    for (auto e = it->begin(); e != it->end(); ++e) {
      const std::string& name = e.key();
      if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
          name.find('\0') != std::string::npos) {
        return Error{std::string(field) + ": '" + name + "' is not a plain file name (no '/')"};
      }
      if (!seen.insert(name).second) {
        return Error{"input '" + name + "' is given twice (in inputs and inputs_base64)"};
      }
      const std::string& value = e.value().get_ref<const std::string&>();
      if (!base64) {
        out.push_back({name, value});
        continue;
      }
      Result<std::string> bytes = receipt::Base64Decode(value, std::string(field) + "/" + name);
      if (!bytes) return bytes.error();
      out.push_back({name, std::move(*bytes)});
    }
  }
  return out;
}

bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = s[i];
    size_t n = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c >> 5) == 0x6) {
      n = 1, cp = c & 0x1F;
    } else if ((c >> 4) == 0xE) {
      n = 2, cp = c & 0x0F;
    } else if ((c >> 3) == 0x1E) {
      n = 3, cp = c & 0x07;
    } else {
      return false;
    }
    if (s.size() - i - 1 < n) return false;
    for (size_t k = 1; k <= n; ++k) {
      unsigned char d = s[i + k];
      if ((d >> 6) != 0x2) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
    if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    i += n + 1;
  }
  return true;
}

std::vector<Tool> AllTools(std::shared_ptr<const ToolContext> context) {
  std::vector<Tool> tools = RunTools(context);
  tools.push_back(VerifyReceiptTool(context));
  tools.push_back(GateSubmitTool(context));
  return tools;
}

}  // namespace ampoule::mcp
