#include "core/json.h"
#include "volent/control/message.h"

#include <optional>
#include <string_view>

namespace volent::control {

std::optional<std::string> ClientCertificate::OutsideValidity(int64_t now_ms) const {
  const int64_t now = now_ms / 1000;
  if (now > not_after) {
    return "the client certificate " + subject + " expired " + std::to_string(now - not_after) +
           " s ago: ask for a new one (volent credential certificate)";
  }
  if (now < not_before) return "the client certificate " + subject + " is not valid yet";
  return std::nullopt;
}
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string PercentDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '+') {
      out.push_back(' ');
    } else if (c == '%' && i + 2 < text.size() && HexValue(text[i + 1]) >= 0 && HexValue(text[i + 2]) >= 0) {
      out.push_back(static_cast<char>(HexValue(text[i + 1]) * 16 + HexValue(text[i + 2])));
      i += 2;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace

void SplitTarget(std::string_view target, Request& request) {
  size_t q = target.find('?');
  request.path = std::string(target.substr(0, q));
  request.query = q == std::string_view::npos ? std::string() : std::string(target.substr(q + 1));
}

std::optional<std::string> QueryParam(std::string_view query, std::string_view key) {
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    size_t eq = pair.find('=');
    if (PercentDecode(pair.substr(0, eq)) == key) {
      return eq == std::string_view::npos ? std::string() : PercentDecode(pair.substr(eq + 1));
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return std::nullopt;
}

Response JsonResponse(int status, const nlohmann::json& body) {
  Response r;
  r.status = status;
  r.content_type = "application/json";
  // Replace invalid UTF-8 rather than fail: a body must always be produced.
  r.body = core::DumpJson(body);
  return r;
}

Response ProblemResponse(const Problem& problem) {
  Response r = JsonResponse(problem.status, ProblemToJson(problem));
  r.content_type = std::string(kProblemContentType);
  return r;
}

}  // namespace volent::control
