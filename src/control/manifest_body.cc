#include "control/manifest_body.h"

#include <optional>

#include <nlohmann/json.hpp>

#include "control/route_table.h"
#include "node/agent_name.h"

namespace volent::control {
namespace {

// Where a syntax error is, 1-based.
struct Position {
  int line = 0;
  int column = 0;
};

Position PositionOfByte(std::string_view text, size_t byte) {
  Position p{1, 1};
  for (size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++p.line;
      p.column = 1;
    } else {
      ++p.column;
    }
  }
  return p;
}

// A SAX consumer that builds nothing: well-formedness only, no memory.
struct WellFormed : nlohmann::json_sax<nlohmann::json> {
  size_t error_byte = 0;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception&) override {
    error_byte = position;
    return false;
  }
};

Problem Malformed(std::string what, Position at, const std::string& instance) {
  Problem p = MakeProblem(400, "malformed-body", "The body is not well-formed",
                          "the body is not well-formed " + what, instance);
  p.errors.push_back({"", at.line, at.column, "not well-formed " + what + " here"});
  return p;
}

// Empty when `body` is well-formed JSON; else the problem. The manifest
// reader takes JSON as YAML (a superset), so a body sent as JSON is held to
// JSON's own grammar here first.
std::optional<Problem> CheckJsonSyntax(std::string_view body, const std::string& instance) {
  WellFormed sax;
  if (nlohmann::json::sax_parse(body.begin(), body.end(), &sax, nlohmann::json::input_format_t::json,
                                true)) {
    return std::nullopt;
  }
  return Malformed("JSON", PositionOfByte(body, sax.error_byte > 0 ? sax.error_byte - 1 : 0),
                   instance);
}

}  // namespace

std::variant<manifest::Agent, Problem> ParseManifestBody(std::string_view content_type,
                                                         std::string_view body,
                                                         const manifest::NodeConfig* config,
                                                         const std::string& instance) {
  if (MediaTypeIn(content_type, {"application/json"})) {
    if (auto problem = CheckJsonSyntax(body, instance)) return *problem;
  }
  manifest::Checked<manifest::Agent> checked = manifest::LoadAgent(body, "manifest", config);
  if (!checked.ok()) {
    const size_t n = checked.problems.size();
    Problem p = checked.readable
                    ? MakeProblem(422, "the manifest has " + std::to_string(n) +
                                           (n == 1 ? " problem" : " problems"),
                                  instance)
                    : MakeProblem(400, "malformed-body", "The body is not well-formed",
                                  "the body could not be read as a manifest", instance);
    for (const auto& e : checked.problems) p.errors.push_back({e.pointer, e.line, e.column, e.message});
    if (p.errors.empty()) p.detail = "the manifest is not valid";
    return p;
  }
  manifest::Agent agent = std::move(*checked.value);
  if (!node::IsValidAgentName(agent.name)) {
    Problem p = MakeProblem(422, "the manifest has 1 problem", instance);
    p.errors.push_back({"/metadata/name", 0, 0,
                        "must be 1 to 63 lowercase letters, digits and '-', starting and ending "
                        "with a letter or digit"});
    return p;
  }
  return agent;
}

}  // namespace volent::control
