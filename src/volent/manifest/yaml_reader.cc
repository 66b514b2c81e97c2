// The YAML reader: yaml-cpp's event parser feeding a builder that makes
// nlohmann::json and records positions. See yaml_reader.h for the rules.
#include "volent/manifest/yaml_reader.h"

#include <sstream>
#include <vector>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/parser.h>

#include "volent/manifest/scalar.h"
#include "volent/manifest/source_text.h"

namespace volent::manifest {
namespace {

using nlohmann::json;

// Thrown inside the builder to end reading at a fatal problem (caught in ReadYaml).
struct Stop {};
// Thrown at a key that is a list or mapping. yaml-cpp also reports a flow
// collection left open at the end of the file ("[a, b") as such a key
// before it finds the error, so ReadYaml first asks whether the text parses.
struct CollectionKey {};

// Takes the events of a parse that only asks whether the text is well-formed.
class Sink : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

class Builder : public YAML::EventHandler {
 public:
  Builder(const SourceText& source, ReadDocument& out) : source_(source), out_(out) {}

  bool has_root() const { return has_root_; }
  json TakeRoot() { return std::move(root_); }

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ > 1) Fatal(mark, "only one document is allowed in a file");
  }
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    CheckAnchor(mark, anchor);
    if (ExpectingKey()) return TakeKey(mark, source_.NullKeyText(mark.pos));
    Place(json(nullptr), Start(mark));
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
    Report(mark, "aliases (*name) are not supported; write the value out");
    if (ExpectingKey()) return TakeKey(mark, "");
    Place(json(nullptr), Start(mark));
  }

  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    CheckAnchor(mark, anchor);
    const bool plain = tag == "?";
    if (const char quote = plain ? 0 : source_.UnclosedQuote(mark.pos)) {
      Fatal(mark, std::string(quote == '"' ? "this double-quoted" : "this single-quoted") +
                      " string is never closed (no " + quote + " before the end of the file)");
    }
    if (!plain && tag != "!") Report(mark, "tags (\"!\" or \"!!\") are not supported");
    if (ExpectingKey()) return TakeKey(mark, value);
    const Slot slot = Start(mark);
    if (!plain) return Place(json(value), slot);
    core::Result<json> resolved = ResolvePlainScalar(value);
    if (!resolved.ok()) Report(mark, resolved.message());
    Place(resolved.ok() ? std::move(*resolved) : json(), slot);
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    OpenCollection(mark, tag, anchor, json::array());
  }
  void OnSequenceEnd() override { CloseCollection(); }

  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    OpenCollection(mark, tag, anchor, json::object());
  }
  void OnMapEnd() override { CloseCollection(); }

 private:
  // Where a value goes: its pointer, and whether it is dropped (under a
  // duplicate key: reported, never used).
  struct Slot {
    std::string pointer;
    bool discard = false;
  };
  struct Frame {
    json value;
    Slot slot;
    size_t count = 0;            // items so far (sequences)
    bool has_key = false;        // a key was read, its value not yet (maps)
    std::string key;
    bool key_duplicate = false;
    std::map<std::string, Position> keys_seen;
  };

  bool ExpectingKey() const {
    return !stack_.empty() && stack_.back().value.is_object() && !stack_.back().has_key;
  }

  void TakeKey(const YAML::Mark& mark, const std::string& key) {
    Frame& frame = stack_.back();
    const Position at = source_.At(mark);
    frame.has_key = true;
    frame.key = key;
    auto [it, inserted] = frame.keys_seen.emplace(key, at);
    frame.key_duplicate = !inserted;
    if (!inserted) {
      Report(mark, "duplicate key \"" + key + "\" (first at line " + std::to_string(it->second.line) +
                        ", column " + std::to_string(it->second.column) + ")",
              frame.slot.pointer + "/" + EscapePointerToken(key));
    } else if (!frame.slot.discard) {
      out_.positions.keys[frame.slot.pointer + "/" + EscapePointerToken(key)] = at;
    }
  }

  // A value begins at `mark`: counts it and records its position.
  Slot Start(const YAML::Mark& mark) {
    if (++nodes_ > kMaxNodes) Fatal(mark, "too many values (more than " + std::to_string(kMaxNodes) + ")");
    Slot slot;
    if (!stack_.empty()) {
      const Frame& frame = stack_.back();
      slot.discard = frame.slot.discard || (frame.value.is_object() && frame.key_duplicate);
      slot.pointer = frame.slot.pointer + "/" +
                     (frame.value.is_object() ? EscapePointerToken(frame.key) : std::to_string(frame.count));
    }
    if (!slot.discard) out_.positions.values[slot.pointer] = source_.At(mark);
    return slot;
  }

  void Place(json value, const Slot& slot) {
    if (stack_.empty()) {
      root_ = std::move(value);
      has_root_ = true;
      return;
    }
    Frame& frame = stack_.back();
    if (frame.value.is_object()) {
      if (!slot.discard) frame.value[frame.key] = std::move(value);
      frame.has_key = false;
    } else {
      if (!slot.discard) frame.value.push_back(std::move(value));
      ++frame.count;
    }
  }

  void OpenCollection(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor, json empty) {
    if (ExpectingKey()) {
      Report(mark, "a key must be a string, not a list or mapping");
      throw CollectionKey{};
    }
    CheckAnchor(mark, anchor);
    if (tag != "?" && tag != "!" && !tag.empty()) Report(mark, "tags (\"!\" or \"!!\") are not supported");
    if (static_cast<int>(stack_.size()) >= kMaxDepth) {
      Fatal(mark, "nested too deeply (more than " + std::to_string(kMaxDepth) + " levels)");
    }
    Frame frame;
    frame.slot = Start(mark);
    frame.value = std::move(empty);
    stack_.push_back(std::move(frame));
  }

  void CloseCollection() {
    Frame frame = std::move(stack_.back());
    stack_.pop_back();
    Place(std::move(frame.value), frame.slot);
  }

  void CheckAnchor(const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (anchor != YAML::NullAnchor) Report(mark, "anchors (&name) are not supported; write the value out");
  }

  void Report(const YAML::Mark& mark, std::string message, std::string pointer = {}) {
    const Position at = source_.At(mark);
    if (pointer.empty() && !stack_.empty()) pointer = CurrentPointer();
    out_.problems.push_back({"", at.line, at.column, std::move(pointer), std::move(message)});
  }

  [[noreturn]] void Fatal(const YAML::Mark& mark, std::string message) {
    Report(mark, std::move(message));
    throw Stop{};
  }

  // The pointer of the value being read (best effort, for problems).
  std::string CurrentPointer() const {
    const Frame& frame = stack_.back();
    if (frame.value.is_object()) {
      return frame.has_key ? frame.slot.pointer + "/" + EscapePointerToken(frame.key) : frame.slot.pointer;
    }
    return frame.slot.pointer + "/" + std::to_string(frame.count);
  }

  const SourceText& source_;
  ReadDocument& out_;
  std::vector<Frame> stack_;
  json root_;
  bool has_root_ = false;
  int documents_ = 0;
  size_t nodes_ = 0;
};

void AddProblem(ReadDocument& doc, Position at, std::string message) {
  doc.problems.push_back({"", at.line, at.column, "", std::move(message)});
}

// yaml-cpp's messages (YAML::ErrorMsg) said in ours: what is wrong at the
// position, in the terms of the text a person wrote. Messages of yaml-cpp's
// node API cannot come from the event parser; anything not listed (a later
// yaml-cpp) is said generically rather than passed on.
std::string ParserMessage(const std::string& raw) {
  struct Row {
    const char* starts;  // yaml-cpp's message, or its fixed beginning
    const char* ours;
  };
  static constexpr Row kRows[] = {
      {"illegal EOF in scalar", "the file ends inside a quoted string (its closing quote is missing)"},
      {"end of map flow not found", "a flow mapping \"{\" is not closed with \"}\" (or an entry in it is malformed)"},
      {"end of sequence flow not found", "a flow list \"[\" is not closed with \"]\" (or an item in it is malformed)"},
      {"end of map not found", "a mapping entry is malformed here (check the indentation, and that each key is followed by \": \")"},
      {"end of sequence not found", "a list item is malformed here (check the indentation of \"- \")"},
      {"illegal map value", "a \":\" where no mapping value can begin (check the indentation, or quote the text)"},
      {"illegal map key", "a \"?\" key where no mapping key can begin (check the indentation)"},
      {"illegal block entry", "a \"- \" list item where no list can begin (check the indentation)"},
      {"illegal flow end", "a \"]\" or \"}\" with no \"[\" or \"{\" to close"},
      {"illegal tab when looking for indentation", "a tab in the indentation (YAML indents with spaces only)"},
      {"illegal document indicator in scalar", "a document marker (\"---\" or \"...\") inside a string"},
      {"illegal character in scalar", "a character that cannot appear here in an unquoted string (quote the text)"},
      {"invalid character in single-quoted string", "a character that is not allowed in a single-quoted string"},
      {"unknown escape character", "an unknown escape (\\) in a double-quoted string"},
      {"bad character found while scanning hex number", "an escape (\\x, \\u or \\U) with a character that is not a hexadecimal digit"},
      {"invalid unicode", "invalid unicode escape (a lone UTF-16 surrogate, or beyond U+10FFFF)"},
      {"unexpected character in block scalar", "unexpected text after \"|\" or \">\" (only \"-\", \"+\", an indentation digit and a comment may follow)"},
      {"cannot set zero indentation for a block scalar", "the indentation digit of a block scalar must be 1 to 9"},
      {"unknown token", "unexpected text here"},
      {"YAML directives must have", "a %YAML directive must name one version, e.g. %YAML 1.2"},
      {"bad YAML version", "a %YAML directive must name one version, e.g. %YAML 1.2"},
      {"YAML major version too large", "only YAML 1.x is read"},
      {"repeated YAML directive", "more than one %YAML directive"},
      {"TAG directives must have", "tags (\"!\" or \"!!\") are not supported"},
      {"repeated TAG directive", "tags (\"!\" or \"!!\") are not supported"},
      {"illegal character found while scanning tag handle", "tags (\"!\" or \"!!\") are not supported"},
      {"tag handle with no suffix", "tags (\"!\" or \"!!\") are not supported"},
      {"end of verbatim tag not found", "tags (\"!\" or \"!!\") are not supported"},
      {"cannot assign multiple tags", "tags (\"!\" or \"!!\") are not supported"},
      {"invalid tag", "tags (\"!\" or \"!!\") are not supported"},
      {"cannot assign multiple anchors", "anchors (&name) are not supported; write the value out"},
      {"anchor not found after &", "anchors (&name) are not supported; write the value out"},
      {"illegal character found while scanning anchor", "anchors (&name) are not supported; write the value out"},
      {"invalid anchor", "anchors (&name) are not supported; write the value out"},
      {"cannot assign multiple aliases", "aliases (*name) are not supported; write the value out"},
      {"aliases can't have any content", "aliases (*name) are not supported; write the value out"},
      {"alias not found after *", "aliases (*name) are not supported; write the value out"},
      {"illegal character found while scanning alias", "aliases (*name) are not supported; write the value out"},
      {"cannot assign the same alias", "aliases (*name) are not supported; write the value out"},
      {"the referenced anchor is not defined", "aliases (*name) are not supported; write the value out"},
      {"invalid alias", "aliases (*name) are not supported; write the value out"},
      {"unexpected end sequence token", "a list ends where it did not begin"},
      {"unexpected end map token", "a mapping ends where it did not begin"},
  };
  constexpr std::string_view kEscape = "unknown escape character: ";
  if (raw.rfind(kEscape, 0) == 0 && raw.size() > kEscape.size()) {
    return "an unknown escape \\" + raw.substr(kEscape.size()) + " in a double-quoted string";
  }
  for (const Row& row : kRows) {
    if (raw.rfind(row.starts, 0) == 0) return row.ours;
  }
  return "the text cannot be read from here on";
}

void AddParserError(ReadDocument& doc, const SourceText& source, const YAML::Exception& e) {
  const Position at = source.At(e.mark);
  std::string message = ParserMessage(e.msg);
  if (e.msg.rfind("invalid unicode", 0) != 0) message = "not well-formed YAML: " + message;
  // A tab in the indentation is the usual cause of an error at its line or
  // the next; said as a hint, since a tab-indented JSON file (flow style) is
  // well-formed and may fail for another reason.
  Position tab = source.TabInIndentation(at.line);
  if (tab.line == 0) tab = source.TabInIndentation(at.line - 1);
  if (tab.line != 0 && e.msg.rfind("illegal tab", 0) != 0) {
    message += "; line " + std::to_string(tab.line) + " is indented with a tab (YAML indents with spaces only)";
  }
  AddProblem(doc, at, std::move(message));
}

}  // namespace

std::string EscapePointerToken(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

Position Positions::Of(const std::string& pointer) const {
  std::string p = pointer;
  for (;;) {
    if (auto it = values.find(p); it != values.end()) return it->second;
    if (p.empty()) return {};
    const size_t slash = p.rfind('/');
    p.resize(slash == std::string::npos ? 0 : slash);
  }
}

Position Positions::KeyOf(const std::string& pointer) const {
  if (auto it = keys.find(pointer); it != keys.end()) return it->second;
  return Of(pointer);
}

ReadDocument ReadYaml(std::string_view text, std::string_view file) {
  ReadDocument doc;
  try {
    if (text.size() > kMaxDocumentBytes) {
      AddProblem(doc, {1, 1}, "the document is larger than " + std::to_string(kMaxDocumentBytes) + " bytes");
    } else if (SourceText source(text); !source.error().empty()) {
      AddProblem(doc, source.error_at(), source.error());
    } else {
      std::istringstream in{std::string(source.parsed())};
      Builder builder(source, doc);
      try {
        YAML::Parser parser(in);
        while (parser.HandleNextDocument(builder)) {
        }
        if (!builder.has_root()) {
          AddProblem(doc, {1, 1}, "the document is empty");
        } else {
          doc.value = builder.TakeRoot();
          doc.readable = true;
        }
      } catch (const Stop&) {
      } catch (const CollectionKey&) {
        try {
          std::istringstream again{std::string(source.parsed())};
          YAML::Parser check(again);
          Sink sink;
          while (check.HandleNextDocument(sink)) {
          }
        } catch (const YAML::Exception& e) {
          doc.problems.pop_back();  // the key was yaml-cpp's guess, not the text's
          AddParserError(doc, source, e);
        }
      } catch (const YAML::Exception& e) {
        AddParserError(doc, source, e);
      }
    }
  } catch (const std::exception&) {
    doc.readable = false;
    AddProblem(doc, {}, "the document could not be read");
  }
  for (Problem& p : doc.problems) p.file = std::string(file);
  if (!doc.readable) doc.value = nullptr;
  return doc;
}

}  // namespace volent::manifest
