// The text of a document as yaml-cpp sees it, and the way back from
// yaml-cpp's byte offsets to the line and column a person sees.
//
// Before parsing, the text is checked (UTF-8, not starting with a UTF-16 or
// UTF-32 byte order mark; no C0 control characters but tab, LF and CR), a
// leading UTF-8 byte order mark is dropped, a CR that is not followed by LF is handed to the parser as LF
// (YAML 1.2 line breaks are LF, CR LF and CR; yaml-cpp knows only the first
// two), and JSON's surrogate pair escapes in double-quoted strings
// ("\ud83d\ude00") are rewritten as the single YAML escape "\U0001F600",
// which yaml-cpp needs. Each rewrite is remembered so that positions still
// point into the original text; lines are counted at LF, CR LF and CR.
//
// Thread-compatible: one per document being read (it caches the last
// position). Never throws but std::bad_alloc.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/mark.h>

#include "volent/manifest/yaml_reader.h"

namespace volent::manifest {

class SourceText {
 public:
  explicit SourceText(std::string_view original);

  // "" when the text may be parsed; else why not, at error_at().
  const std::string& error() const { return error_; }
  Position error_at() const { return error_at_; }

  // What to hand to the parser.
  std::string_view parsed() const { return parsed_; }

  // The line and column (1-based, columns in characters) of a parser mark.
  Position At(const YAML::Mark& mark) const;

  // For a scalar the parser reported at `pos`: its quote character (' or ")
  // when it is a quoted scalar whose closing quote is missing, else 0.
  // yaml-cpp takes such a string to the end of the file when the file ends
  // with a line break, and would accept it.
  char UnclosedQuote(int pos) const;

  // The position of a tab in the indentation of `line` (1-based: the
  // blanks before its first other character), or {} when there is none.
  Position TabInIndentation(int line) const;

  // The text of a plain key that the parser reported as null ("null", "~",
  // ...), read back from the source at `pos`; "" for an empty key.
  std::string NullKeyText(int pos) const;

 private:
  void Check();
  void RewriteForParser();
  size_t OriginalOffset(int parsed_pos) const;
  Position PositionOfOffset(size_t offset) const;

  std::string_view original_;
  size_t bom_ = 0;
  std::string parsed_;
  // (offset in parsed_ just after a rewrite, bytes removed so far)
  std::vector<std::pair<size_t, size_t>> shifts_;
  std::vector<size_t> line_starts_;  // offsets in original_
  std::string error_;
  Position error_at_;
  // The last position computed (a cache; PositionOfOffset is const).
  mutable size_t last_offset_ = SIZE_MAX;
  mutable int last_column_ = 1;
};

}  // namespace volent::manifest
