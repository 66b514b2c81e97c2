#include "core/http/framing.h"

#include <utility>

namespace core::httpd {

namespace {

// Content-Length values longer than this are refused: 10^18 bytes is beyond
// any body limit, and a fixed width keeps the number from overflowing
// anywhere it is read.
constexpr size_t kMaxLengthDigits = 18;

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
    char y = b[i] >= 'A' && b[i] <= 'Z' ? static_cast<char>(b[i] - 'A' + 'a') : b[i];
    if (x != y) return false;
  }
  return true;
}

// A field's value as sent, less the one space clients put after the colon.
// Other blanks are kept, so that a value padded with them is not mistaken
// for the plain spelling.
std::string_view Bare(std::string_view value) {
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  return value;
}

bool IsPlainNumber(std::string_view value) {
  if (value.empty() || value.size() > kMaxLengthDigits) return false;
  for (char c : value) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// True for an HTTP/1.0 (or older) request line. Versions Beast cannot read
// are left to it to refuse.
bool BeforeHttp11(std::string_view request_line) {
  size_t space = request_line.rfind(' ');
  if (space == std::string_view::npos) return false;
  std::string_view version = request_line.substr(space + 1);
  if (version.size() != 8 || version.substr(0, 5) != "HTTP/" || version[6] != '.') return false;
  return version[5] == '0' || (version[5] == '1' && version[7] == '0');
}

// The field rules, on a block whose line endings and bytes are already
// known to be good (every line ends in CRLF; the last line is empty).
Status CheckFields(std::string_view block) {
  size_t eol = block.find("\r\n");
  std::string_view request_line = block.substr(0, eol);
  size_t at = eol + 2;
  int transfer_encodings = 0;
  int content_lengths = 0;
  bool odd_coding = false;
  bool odd_length = false;
  for (;;) {
    eol = block.find("\r\n", at);
    std::string_view line = block.substr(at, eol - at);
    at = eol + 2;
    if (line.empty()) break;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) return Error{"a header line has no colon"};
    if (colon == 0) return Error{"a header line has no field name"};
    std::string_view name = line.substr(0, colon);
    if (name.back() == ' ' || name.back() == '\t') {
      // RFC 9112 section 5.1: such a name must be refused, not trimmed.
      return Error{"a header field name is followed by blanks before its colon"};
    }
    std::string_view value = line.substr(colon + 1);
    if (EqualsIgnoringCase(name, "transfer-encoding")) {
      ++transfer_encodings;
      if (!EqualsIgnoringCase(Bare(value), "chunked")) odd_coding = true;
    } else if (EqualsIgnoringCase(name, "content-length")) {
      ++content_lengths;
      if (!IsPlainNumber(Bare(value))) odd_length = true;
    }
  }
  if (transfer_encodings > 1) return Error{"Transfer-Encoding appears more than once"};
  if (odd_coding) {
    return Error{"the Transfer-Encoding is not \"chunked\", the only transfer coding this server reads"};
  }
  if (content_lengths > 1) return Error{"Content-Length appears more than once"};
  if (odd_length) return Error{"the Content-Length is not a plain decimal number"};
  if (transfer_encodings > 0 && content_lengths > 0) {
    return Error{"the request has both Transfer-Encoding and Content-Length, so its length is ambiguous"};
  }
  if (transfer_encodings > 0 && BeforeHttp11(request_line)) {
    return Error{"an HTTP/1.0 request cannot have a Transfer-Encoding"};
  }
  return Status::Ok();
}

}  // namespace

HeaderScanner::State HeaderScanner::Fail(std::string reason) {
  reason_ = std::move(reason);
  return state_ = State::kBad;
}

HeaderScanner::State HeaderScanner::Scan(std::string_view received) {
  if (state_ != State::kNeedMore) return state_;
  for (; next_ < received.size(); ++next_) {
    unsigned char c = static_cast<unsigned char>(received[next_]);
    if (next_ == line_start_ && (c == ' ' || c == '\t')) {
      return Fail(line_start_ == 0 ? "the request line starts with a blank"
                                   : "a header line starts with a blank (obsolete line folding)");
    }
    if (c == '\r') {
      if (next_ + 1 == received.size()) return State::kNeedMore;  // its LF is still to come
      if (received[next_ + 1] != '\n') return Fail("a CR in the header is not followed by LF");
      size_t end = next_ + 2;
      if (next_ == line_start_) {
        if (line_start_ == 0) return Fail("the request starts with an empty line");
        length_ = end;
        Status fields = CheckFields(received.substr(0, end));
        if (!fields.ok()) return Fail(fields.message());
        return state_ = State::kComplete;
      }
      line_start_ = end;
      ++next_;  // past the LF with the loop's own step
      continue;
    }
    if (c == '\n') return Fail("a header line ends in LF without CR");
    if ((c < 0x20 && c != '\t') || c == 0x7f) return Fail("the header has a control character (such as NUL) in it");
  }
  return State::kNeedMore;
}

Status CheckFraming(std::string_view header) {
  HeaderScanner scanner;
  switch (scanner.Scan(header)) {
    case HeaderScanner::State::kBad:
      return Error{scanner.reason()};
    case HeaderScanner::State::kNeedMore:
      return Error{"the header does not end with an empty line"};
    case HeaderScanner::State::kComplete:
      break;
  }
  if (scanner.length() != header.size()) return Error{"there are bytes after the header's empty line"};
  return Status::Ok();
}

}  // namespace core::httpd
