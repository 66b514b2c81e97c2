#include "ampoule/gate/action.h"

#include <ctime>
#include <vector>

#include "ampoule/gate/exact_json.h"
#include "ampoule/gate/json_fields.h"
#include "ampoule/gate/names.h"
#include "ampoule/run/output_files.h"
#include "core/rfc3339.h"

namespace ampoule::gate {
namespace {

namespace fs = std::filesystem;

// RFC 6901 (but not the whole document): '/'-separated tokens; '~' only as
// "~0" or "~1".
bool IsJsonPointer(std::string_view p) {
  if (p.empty() || p[0] != '/') return false;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '~' && (i + 1 >= p.size() || (p[i + 1] != '0' && p[i + 1] != '1'))) return false;
  }
  return true;
}

constexpr std::string_view kOutputFilePrefix = "output/";

// `spec` is part of the draft's ExactDocument tree, whose numbers are in
// `numbers`.
core::Result<AssertedField> ParseField(const std::string& name, const nlohmann::json& spec,
                                 const std::vector<std::string>& numbers) {
  const std::string where = "draft field 'fields." + name + "'";
  if (core::Status s = CheckObject(spec, where, {"value", "from"}); !s.ok()) return s;
  if (!spec.contains("value")) return core::Error{where + " needs 'value'"};
  core::Result<std::string> from = RequiredString(spec, "from", where);
  if (!from.ok()) return from.status();
  if (!ParseFieldSource(*from)) {
    return core::Error{where + " 'from' must be a JSON Pointer (RFC 6901) into the output, '/' before each "
                 "name, '~0' for '~' and '~1' for '/', or output/NAME#POINTER for an output file "
                 "(got '" + *from + "')"};
  }
  // The value is delivered as it was compared: a number nlohmann would
  // round (beyond 64 bits, more digits than a double holds) is refused.
  core::Result<nlohmann::json> value = ExactValue(spec.at("value"), numbers, where + " 'value'");
  if (!value.ok()) return value.status();
  return AssertedField{std::move(*value), *from};
}

core::Result<Evidence> ParseEvidence(const nlohmann::json& draft, const fs::path& base) {
  auto it = draft.find("evidence");
  if (it == draft.end()) return core::Error{"the draft needs the field 'evidence' (receipt, program, inputs, output)"};
  const nlohmann::json& e = *it;
  const char* where = "draft field 'evidence'";
  if (core::Status s = CheckObject(e, where, {"receipt", "program", "inputs", "stdin", "output", "output_files"});
      !s.ok())
    return s;
  Evidence ev;
  // The receipt may come from the command line instead (--receipt).
  if (e.contains("receipt")) {
    core::Result<std::string> receipt = RequiredPath(e, "receipt", where, base);
    if (!receipt.ok()) return receipt.status();
    ev.receipt = *receipt;
  }
  core::Result<std::string> program = RequiredPath(e, "program", where, base);
  if (!program.ok()) return program.status();
  ev.program = *program;
  core::Result<std::string> output = RequiredPath(e, "output", where, base);
  if (!output.ok()) return output.status();
  ev.output = *output;
  if (e.contains("stdin")) {
    core::Result<std::string> in = RequiredPath(e, "stdin", where, base);
    if (!in.ok()) return in.status();
    ev.stdin_path = *in;
  }
  if (auto inputs = e.find("inputs"); inputs != e.end()) {
    if (!inputs->is_object()) return core::Error{"draft field 'evidence.inputs' must be an object of name: path"};
    for (const auto& [name, path] : inputs->items()) {
      if (name.empty() || name.find('/') != std::string::npos) {
        return core::Error{"draft field 'evidence.inputs' has an input name '" + name +
                     "'; names are plain file names, as in the receipt"};
      }
      if (!path.is_string() || path.get_ref<const std::string&>().empty()) {
        return core::Error{"draft field 'evidence.inputs." + name + "' must be a non-empty path"};
      }
      ev.inputs[name] = ResolvePath(path.get<std::string>(), base);
    }
  }
  if (auto files = e.find("output_files"); files != e.end()) {
    if (!files->is_object()) return core::Error{"draft field 'evidence.output_files' must be an object of name: path"};
    for (const auto& [name, path] : files->items()) {
      if (core::Status ok = run::CheckOutputName(name); !ok.ok()) {
        return core::Error{"draft field 'evidence.output_files': " + ok.message()};
      }
      if (!path.is_string() || path.get_ref<const std::string&>().empty()) {
        return core::Error{"draft field 'evidence.output_files." + name + "' must be a non-empty path"};
      }
      ev.output_files[name] = ResolvePath(path.get<std::string>(), base);
    }
  }
  return ev;
}

}  // namespace

std::optional<FieldSource> ParseFieldSource(std::string_view from) {
  FieldSource source;
  if (from.substr(0, kOutputFilePrefix.size()) == kOutputFilePrefix) {
    size_t hash = from.find('#');
    if (hash == std::string_view::npos) return std::nullopt;
    source.file = std::string(from.substr(kOutputFilePrefix.size(), hash - kOutputFilePrefix.size()));
    if (!run::CheckOutputName(source.file).ok()) return std::nullopt;
    from = from.substr(hash + 1);
  }
  if (!IsJsonPointer(from)) return std::nullopt;
  source.pointer = std::string(from);
  return source;
}

core::Result<int64_t> ParseUtcTimestamp(std::string_view text) {
  // YYYY-MM-DDTHH:MM:SS[.fraction]Z
  auto digits = [&](size_t at, size_t n, int* out) {
    if (at + n > text.size()) return false;
    int v = 0;
    for (size_t i = at; i < at + n; ++i) {
      if (text[i] < '0' || text[i] > '9') return false;
      v = v * 10 + (text[i] - '0');
    }
    *out = v;
    return true;
  };
  int year, month, day, hour, minute, second;
  bool shape = text.size() >= 20 && digits(0, 4, &year) && text[4] == '-' && digits(5, 2, &month) &&
               text[7] == '-' && digits(8, 2, &day) && text[10] == 'T' && digits(11, 2, &hour) &&
               text[13] == ':' && digits(14, 2, &minute) && text[16] == ':' && digits(17, 2, &second);
  size_t end = 19;
  if (shape && text[end] == '.') {
    ++end;
    size_t start = end;
    while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
    shape = end > start;
  }
  shape = shape && end + 1 == text.size() && text[end] == 'Z';
  if (!shape || year < 1970 || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 ||
      minute > 59 || second > 59) {
    return core::Error{"'" + std::string(text) + "' is not an RFC 3339 UTC time like 2026-11-29T08:00:00Z"};
  }
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  const time_t t = timegm(&tm);
  if (tm.tm_mday != day) return core::Error{"'" + std::string(text) + "' names a day that does not exist"};
  return static_cast<int64_t>(t);
}

core::Result<ActionDraft> LoadActionDraft(const std::string& path) {
  core::Result<Document> doc = ReadDocument(path, "action draft");
  if (!doc.ok()) return doc.status();
  core::Result<ActionDraft> draft = ParseActionDraft(doc->text, doc->folder);
  if (!draft.ok()) return core::Error{path + ": " + draft.message()};
  return draft;
}

core::Result<ActionDraft> ParseActionDraft(std::string_view json_text, const fs::path& base_dir) {
  // Numbers keep their text: a field's value is compared exactly.
  core::Result<ExactDocument> parsed = ParseExact(json_text, "the action draft");
  if (!parsed.ok()) return parsed.status();
  const nlohmann::json& d = parsed->tree;
  if (core::Status s = CheckObject(d, "the draft", {"kind", "idempotency_key", "fields", "data_as_of", "evidence"});
      !s.ok()) {
    return s;
  }
  ActionDraft draft;
  core::Result<std::string> kind = RequiredString(d, "kind", "the draft");
  if (!kind.ok()) return kind.status();
  // The kind selects the policy's pinning and the key finds duplicates:
  // both in one spelling (names.h).
  core::Result<std::string> kind_name = NormaliseName(*kind, "the draft's kind");
  if (!kind_name.ok()) return kind_name.status();
  draft.kind = *kind_name;
  core::Result<std::string> key = RequiredString(d, "idempotency_key", "the draft");
  if (!key.ok()) return key.status();
  core::Result<std::string> key_name = NormaliseName(*key, "the draft's idempotency_key");
  if (!key_name.ok()) return key_name.status();
  draft.idempotency_key = *key_name;

  auto fields = d.find("fields");
  if (fields == d.end() || !fields->is_object() || fields->empty()) {
    return core::Error{"the draft needs 'fields': an object naming at least one asserted field, "
                 "each {\"value\": ..., \"from\": \"/json/pointer\"}"};
  }
  for (const auto& [name, spec] : fields->items()) {
    core::Result<AssertedField> field = ParseField(name, spec, parsed->numbers);
    if (!field.ok()) return field.status();
    draft.fields[name] = std::move(*field);
  }

  core::Result<std::string> as_of = RequiredString(d, "data_as_of", "the draft");
  if (!as_of.ok()) return as_of.status();
  core::Result<int64_t> as_of_seconds = ParseUtcTimestamp(*as_of);
  if (!as_of_seconds.ok()) return core::Error{"the draft's data_as_of: " + as_of_seconds.message()};
  draft.data_as_of = *as_of_seconds;

  core::Result<Evidence> evidence = ParseEvidence(d, base_dir);
  if (!evidence.ok()) return evidence.status();
  draft.evidence = std::move(*evidence);
  // A field read from an output file needs that file among the evidence.
  for (const auto& [name, field] : draft.fields) {
    std::string file = ParseFieldSource(field.from)->file;
    if (!file.empty() && draft.evidence.output_files.count(file) == 0) {
      return core::Error{"draft field 'fields." + name + "' comes from the output file '" + file +
                   "', which 'evidence.output_files' does not give"};
    }
  }
  return draft;
}

}  // namespace ampoule::gate
