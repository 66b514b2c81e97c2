// ReadAndValidate and the built-in schemas (document.h).
#include "volent/manifest/document.h"

#include <algorithm>
#include <tuple>

#include "volent/manifest/schema_explain.h"
#include "volent/manifest/schema_files.h"
#include "volent/manifest/schema_validation.h"

namespace volent::manifest {
namespace {

using nlohmann::json;

std::string_view EmbeddedSchema(std::string_view path) {
  for (size_t i = 0; i < kEmbeddedFileCount; ++i) {
    if (kEmbeddedFiles[i].path == path) return kEmbeddedFiles[i].bytes;
  }
  return {};
}

struct BuiltSchema {
  json document;
  CompiledSchema compiled;
  explicit BuiltSchema(std::string_view text)
      : document(json::parse(text, nullptr, false)), compiled(document) {}
};

const BuiltSchema& Built(SchemaKind kind) {
  static const BuiltSchema agent(AgentSchemaText());
  static const BuiltSchema config(NodeConfigSchemaText());
  return kind == SchemaKind::kAgent ? agent : config;
}

}  // namespace

const json* Member(const json* v, const char* key) {
  if (v == nullptr || !v->is_object()) return nullptr;
  auto it = v->find(key);
  return it == v->end() ? nullptr : &*it;
}

std::string StringAt(const json* v, const char* key) {
  const json* m = Member(v, key);
  return m && m->is_string() ? m->get<std::string>() : "";
}

std::string_view AgentSchemaText() { return EmbeddedSchema("agent.schema.json"); }
std::string_view NodeConfigSchemaText() { return EmbeddedSchema("volent.schema.json"); }

std::string DocumentKind(std::string_view text) {
  try {
    ReadDocument read = ReadYaml(text, "");
    if (!read.readable || !read.value.is_object()) return "";
    auto kind = read.value.find("kind");
    return kind != read.value.end() && kind->is_string() ? kind->get<std::string>() : "";
  } catch (const std::exception&) {
    return "";
  }
}

const json& SchemaJson(SchemaKind kind) { return Built(kind).document; }

std::string FormatProblem(const Problem& problem) {
  return problem.file + ":" + std::to_string(problem.line) + ":" + std::to_string(problem.column) + ": " +
         (problem.pointer.empty() ? "" : problem.pointer + ": ") + problem.message;
}

void CheckedDocument::Add(const std::string& pointer, std::string message, bool at_key) {
  const Position at = at_key ? positions.KeyOf(pointer) : positions.Of(pointer);
  problems.push_back({file, at.line, at.column, pointer, std::move(message)});
}

bool CheckedDocument::HasProblemAt(const std::string& pointer) const {
  return std::any_of(problems.begin(), problems.end(), [&](const Problem& p) { return p.pointer == pointer; });
}

void SortProblems(Problems& problems) {
  auto key = [](const Problem& p) { return std::tie(p.line, p.column, p.pointer, p.message); };
  std::stable_sort(problems.begin(), problems.end(), [&](const Problem& a, const Problem& b) { return key(a) < key(b); });
  problems.erase(std::unique(problems.begin(), problems.end(),
                             [&](const Problem& a, const Problem& b) { return key(a) == key(b); }),
                 problems.end());
  if (problems.size() > kMaxProblems) {
    const size_t more = problems.size() - (kMaxProblems - 1);
    const Problem last = problems[kMaxProblems - 1];
    problems.resize(kMaxProblems - 1);
    problems.push_back({last.file, last.line, last.column, "", std::to_string(more) + " more problems not shown"});
  }
}

CheckedDocument ReadAndValidate(std::string_view text, std::string_view file, SchemaKind kind) {
  CheckedDocument doc;
  doc.file = std::string(file);
  ReadDocument read = ReadYaml(text, file);
  doc.value = std::move(read.value);
  doc.positions = std::move(read.positions);
  doc.problems = std::move(read.problems);
  doc.readable = read.readable;
  if (!doc.readable) return doc;

  const BuiltSchema& schema = Built(kind);
  // First without a list of errors: valijson then stops at the first
  // failure of each value, and its constraints run in an order that checks
  // maxItems before uniqueItems. Listing every error instead would compare
  // all pairs of an overlong list and record every equal pair (a list of
  // 100,000 equal items: 5e9 errors).
  if (schema.compiled.Validate(doc.value, nullptr)) return doc;
  std::vector<Finding> findings = ExplainSchemaFailures(schema.document, doc.value);
  if (!findings.empty()) {
    for (Finding& f : findings) doc.Add(f.pointer, std::move(f.message), f.at_key);
    return doc;
  }
  // The explanation found nothing valijson objects to: valijson's errors,
  // in our words (SchemaMessage). Each list in the schemas that must hold
  // unique items has a maxItems, and the explanation reports an overlong
  // list, so the pairs compared here are few.
  std::vector<SchemaError> errors;
  schema.compiled.Validate(doc.value, &errors);
  const bool only_summaries = std::all_of(errors.begin(), errors.end(), [](const SchemaError& e) { return e.summary; });
  for (SchemaError& e : errors) {
    if (only_summaries || !e.summary) doc.Add(e.pointer, std::move(e.message));
  }
  if (errors.empty()) doc.Add("", "does not match the schema here");
  return doc;
}

}  // namespace volent::manifest
