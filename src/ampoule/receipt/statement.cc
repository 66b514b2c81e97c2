#include "ampoule/receipt/statement.h"

#include "core/hex.h"
#include "core/json_strict.h"

namespace ampoule::receipt {
namespace {

using nlohmann::json;

core::Result<std::map<std::string, std::string>> ParseDigestSet(const json& digest,
                                                         const std::string& where) {
  if (!digest.is_object()) return core::Error{where + ": field \"digest\" must be an object"};
  std::map<std::string, std::string> out;
  for (const auto& [algorithm, value] : digest.items()) {
    if (!value.is_string()) {
      return core::Error{where + ": digest \"" + algorithm.substr(0, 64) + "\" must be a string"};
    }
    out.emplace(algorithm, value.get<std::string>());
  }
  auto sha256 = out.find("sha256");
  if (sha256 == out.end()) return core::Error{where + ": has no sha256 digest"};
  if (!core::IsLowerHex(sha256->second, 32)) {
    return core::Error{where + ": sha256 digest must be 64 lowercase hex digits"};
  }
  return out;
}

core::Result<Subject> ParseSubject(const json& entry, size_t index) {
  const std::string where = "statement: subject[" + std::to_string(index) + "]";
  if (!entry.is_object()) return core::Error{where + ": must be an object"};
  Subject subject;
  if (auto name = entry.find("name"); name != entry.end()) {
    if (!name->is_string()) return core::Error{where + ": field \"name\" must be a string"};
    subject.name = name->get<std::string>();
  }
  auto digest = entry.find("digest");
  if (digest == entry.end()) return core::Error{where + ": missing required field \"digest\""};
  core::Result<std::map<std::string, std::string>> set = ParseDigestSet(*digest, where);
  if (!set.ok()) return set.error();
  subject.digest = std::move(*set);
  return subject;
}

core::Status ParseSubjects(const json& doc, Statement& statement) {
  auto subjects = doc.find("subject");
  if (subjects == doc.end()) return core::Error{"statement: missing required field \"subject\""};
  if (!subjects->is_array()) return core::Error{"statement: field \"subject\" must be an array"};
  if (subjects->empty()) return core::Error{"statement: \"subject\" is empty; it must name an artifact"};
  if (subjects->size() > kMaxSubjects) {
    return core::Error{"statement: more than " + std::to_string(kMaxSubjects) + " subjects"};
  }
  for (size_t i = 0; i < subjects->size(); ++i) {
    core::Result<Subject> subject = ParseSubject((*subjects)[i], i);
    if (!subject.ok()) return subject.error();
    statement.subject.push_back(std::move(*subject));
  }
  return core::Status::Ok();
}

}  // namespace

core::Result<Statement> ParseStatement(std::string_view json_text) {
  core::Result<json> doc = core::ParseJsonStrict(json_text, "statement", core::JsonNumbers::kExact);
  if (!doc.ok()) return doc.error();
  if (!doc->is_object()) return core::Error{"statement: must be a JSON object"};
  auto type = doc->find("_type");
  if (type == doc->end()) return core::Error{"statement: missing required field \"_type\""};
  if (!type->is_string() || type->get<std::string>() != kStatementType) {
    return core::Error{"statement: \"_type\" must be \"" + std::string(kStatementType) + "\""};
  }
  Statement statement;
  CORE_RETURN_IF_ERROR(ParseSubjects(*doc, statement));
  auto predicate_type = doc->find("predicateType");
  if (predicate_type == doc->end()) {
    return core::Error{"statement: missing required field \"predicateType\""};
  }
  if (!predicate_type->is_string() || predicate_type->get<std::string>().empty()) {
    return core::Error{"statement: \"predicateType\" must be a non-empty string"};
  }
  statement.predicate_type = predicate_type->get<std::string>();
  if (auto predicate = doc->find("predicate"); predicate != doc->end()) {
    if (!predicate->is_object()) return core::Error{"statement: field \"predicate\" must be an object"};
    statement.predicate = std::move(*predicate);
  }
  return statement;
}

std::string SerializeStatement(const Statement& statement) {
  json subjects = json::array();
  for (const Subject& s : statement.subject) {
    json entry = {{"digest", s.digest}};
    if (!s.name.empty()) entry["name"] = s.name;
    subjects.push_back(std::move(entry));
  }
  json doc = {{"_type", kStatementType},
              {"subject", std::move(subjects)},
              {"predicateType", statement.predicate_type},
              {"predicate", statement.predicate.is_object() ? statement.predicate
                                                            : json::object()}};
  return core::DumpJson(doc);
}

}  // namespace ampoule::receipt
