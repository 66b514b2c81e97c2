// Checks, rewrites and maps positions of a document's text (source_text.h).
#include "volent/manifest/source_text.h"

#include <algorithm>
#include <cstdio>

#include "core/hex.h"

namespace volent::manifest {
namespace {

bool IsContinuation(unsigned char c) { return c >= 0x80 && c <= 0xbf; }

// Length of the UTF-8 sequence at s[i], or 0 when it is not well-formed
// (overlong forms, surrogates and code points above U+10FFFF included).
size_t Utf8Length(std::string_view s, size_t i) {
  const unsigned char c = s[i];
  auto at = [&](size_t k) -> unsigned char { return i + k < s.size() ? s[i + k] : 0; };
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) return IsContinuation(at(1)) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    const unsigned char lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
    return at(1) >= lo && at(1) <= hi && IsContinuation(at(2)) ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    const unsigned char lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
    return at(1) >= lo && at(1) <= hi && IsContinuation(at(2)) && IsContinuation(at(3)) ? 4 : 0;
  }
  return 0;
}

int HexValue(std::string_view s, size_t i) {
  if (i + 4 > s.size()) return -1;
  int v = 0;
  for (size_t k = i; k < i + 4; ++k) {
    const char c = s[k];
    const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

bool StartsToken(std::string_view s, size_t i, size_t begin) {
  if (i == begin) return true;
  const char p = s[i - 1];
  return p == ' ' || p == '\t' || p == '\n' || p == '\r' || p == '[' || p == '{' || p == ',' || p == ':';
}

}  // namespace

SourceText::SourceText(std::string_view original) : original_(original) {
  if (original_.substr(0, 3) == "\xef\xbb\xbf") bom_ = 3;
  Check();
  if (error_.empty()) RewriteForParser();
}

void SourceText::Check() {
  line_starts_.push_back(bom_);
  // A UTF-16 or UTF-32 file would otherwise be "not UTF-8 (byte 0xff)" or a
  // control character at 1:1, which does not say what to do about it.
  const std::string_view head = original_.substr(0, 4);
  if (head.substr(0, 2) == "\xff\xfe" || head.substr(0, 2) == "\xfe\xff" ||
      head == std::string_view("\0\0\xfe\xff", 4)) {
    error_ = "the text is UTF-16 or UTF-32 (it starts with that byte order mark); save it as UTF-8";
    error_at_ = {1, 1};
    return;
  }
  for (size_t i = bom_; i < original_.size();) {
    const unsigned char c = original_[i];
    const size_t n = Utf8Length(original_, i);
    if (n == 0) {
      error_ = "the text is not UTF-8 (byte 0x" + core::HexEncode(original_.substr(i, 1)) + ")";
      error_at_ = PositionOfOffset(i);
      return;
    }
    // DEL, C1 controls and U+FEFF past the start are left alone: the node
    // stores a manifest as JSON with such characters unescaped (a "\u0085"
    // written in a double-quoted string), and reads that JSON back here.
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
      char name[8];
      std::snprintf(name, sizeof name, "U+%04X", c);
      error_ = std::string("control character ") + name + (c == 0 ? " (a NUL byte)" : "") +
               " is not allowed (escape it in a double-quoted string)";
      error_at_ = PositionOfOffset(i);
      return;
    }
    // YAML 1.2 line breaks: LF, CR LF, and CR alone (RewriteForParser
    // hands a lone CR to the parser as LF, which yaml-cpp needs).
    if (c == '\n' || (c == '\r' && (i + 1 == original_.size() || original_[i + 1] != '\n'))) {
      line_starts_.push_back(i + 1);
    }
    i += n;
  }
}

void SourceText::RewriteForParser() {
  std::string_view s = original_;
  const size_t begin = bom_;
  parsed_.reserve(s.size() - begin);
  enum { kPlain, kDouble, kSingle, kComment } state = kPlain;
  size_t removed = 0;
  for (size_t i = begin; i < s.size(); ++i) {
    // A lone CR becomes LF: one byte for one, so no offset shifts.
    const char c = s[i] == '\r' && (i + 1 == s.size() || s[i + 1] != '\n') ? '\n' : s[i];
    switch (state) {
      case kPlain:
        if (c == '#' && StartsToken(s, i, begin)) state = kComment;
        if (c == '"' && StartsToken(s, i, begin)) state = kDouble;
        if (c == '\'' && StartsToken(s, i, begin)) state = kSingle;
        break;
      case kComment:
        if (c == '\n') state = kPlain;
        break;
      case kSingle:
        if (c == '\'') {
          if (i + 1 < s.size() && s[i + 1] == '\'') {
            parsed_ += c;
            ++i;
          } else {
            state = kPlain;
          }
        }
        break;
      case kDouble:
        if (c == '"') {
          state = kPlain;
        } else if (c == '\\' && i + 1 < s.size()) {
          const int high = s[i + 1] == 'u' ? HexValue(s, i + 2) : -1;
          const int low = high >= 0xd800 && high <= 0xdbff && s.substr(i + 6, 2) == "\\u" ? HexValue(s, i + 8) : -1;
          if (low >= 0xdc00 && low <= 0xdfff) {
            const unsigned code = 0x10000 + ((high - 0xd800) << 10) + (low - 0xdc00);
            char escape[16];
            std::snprintf(escape, sizeof escape, "\\U%08X", code);
            parsed_ += escape;
            i += 11;
            removed += 2;
            shifts_.emplace_back(parsed_.size(), removed);
            continue;
          }
          parsed_ += c;
          ++i;
          parsed_ += s[i] == '\r' && (i + 1 == s.size() || s[i + 1] != '\n') ? '\n' : s[i];
          continue;
        }
        break;
    }
    parsed_ += c;
  }
}

size_t SourceText::OriginalOffset(int parsed_pos) const {
  const size_t pos = static_cast<size_t>(parsed_pos);
  size_t shift = 0;
  auto it = std::upper_bound(shifts_.begin(), shifts_.end(), std::make_pair(pos, SIZE_MAX));
  if (it != shifts_.begin()) shift = std::prev(it)->second;
  return std::min(original_.size(), bom_ + pos + shift);
}

Position SourceText::PositionOfOffset(size_t offset) const {
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  const size_t line = static_cast<size_t>(it - line_starts_.begin());
  const size_t start = line_starts_[line == 0 ? 0 : line - 1];
  // Positions mostly come in reading order: count on from the last one
  // when it is on the same line (else one long line would be quadratic).
  size_t from = start;
  int column = 1;
  if (last_offset_ >= start && last_offset_ <= offset) {
    from = last_offset_;
    column = last_column_;
  }
  for (size_t i = from; i < offset && i < original_.size(); ++i) {
    if (!IsContinuation(static_cast<unsigned char>(original_[i]))) ++column;
  }
  last_offset_ = std::min(offset, original_.size());
  last_column_ = column;
  return {static_cast<int>(std::max<size_t>(line, 1)), column};
}

Position SourceText::At(const YAML::Mark& mark) const {
  if (mark.pos < 0) return mark.line >= 0 ? Position{mark.line + 1, mark.column + 1} : Position{};
  return PositionOfOffset(OriginalOffset(mark.pos));
}

char SourceText::UnclosedQuote(int pos) const {
  if (pos < 0 || static_cast<size_t>(pos) >= parsed_.size()) return 0;
  const char quote = parsed_[pos];
  if (quote != '"' && quote != '\'') return 0;  // a block scalar (| or >)
  for (size_t i = static_cast<size_t>(pos) + 1; i < parsed_.size(); ++i) {
    const char c = parsed_[i];
    if (quote == '"' && c == '\\') {
      ++i;  // an escape: the next character is never the end
    } else if (c == quote) {
      if (quote == '\'' && i + 1 < parsed_.size() && parsed_[i + 1] == '\'') {
        ++i;  // '' is a quote inside a single-quoted string
      } else {
        return 0;
      }
    }
  }
  return quote;
}

Position SourceText::TabInIndentation(int line) const {
  if (line < 1 || static_cast<size_t>(line) > line_starts_.size()) return {};
  int column = 1;
  for (size_t i = line_starts_[line - 1]; i < original_.size(); ++i, ++column) {
    if (original_[i] == '\t') return {line, column};
    if (original_[i] != ' ') break;
  }
  return {};
}

std::string SourceText::NullKeyText(int pos) const {
  if (pos < 0) return "";
  std::string_view rest = original_.substr(OriginalOffset(pos));
  for (std::string_view word : {"null", "Null", "NULL", "~"}) {
    if (rest.substr(0, word.size()) != word) continue;
    if (rest.size() == word.size()) return std::string(word);
    const char next = rest[word.size()];
    if (next == ' ' || next == '\t' || next == ':' || next == ',' || next == '}' || next == '\r' || next == '\n') {
      return std::string(word);
    }
  }
  return "";
}

}  // namespace volent::manifest
