#include "ampoule/gate/exact_json.h"

#include <algorithm>
#include <cstdint>
#include <optional>

#include "core/json.h"
#include "core/json_strict.h"

namespace ampoule::gate {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool InNumberRun(char c) { return IsDigit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'; }

// RFC 8259: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
struct NumberParts {
  bool negative = false;
  std::string_view integer, fraction, exponent;  // exponent digits, without its sign
  bool exponent_negative = false;
};

std::optional<NumberParts> SplitNumber(std::string_view t) {
  NumberParts p;
  size_t i = 0;
  auto digits = [&]() {
    const size_t start = i;
    while (i < t.size() && IsDigit(t[i])) ++i;
    return t.substr(start, i - start);
  };
  if (i < t.size() && t[i] == '-') {
    p.negative = true;
    ++i;
  }
  p.integer = digits();
  if (p.integer.empty() || (p.integer.size() > 1 && p.integer[0] == '0')) return std::nullopt;
  if (i < t.size() && t[i] == '.') {
    ++i;
    p.fraction = digits();
    if (p.fraction.empty()) return std::nullopt;
  }
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) p.exponent_negative = t[i++] == '-';
    p.exponent = digits();
    if (p.exponent.empty()) return std::nullopt;
  }
  if (i != t.size()) return std::nullopt;
  return p;
}

// A whole number of any size: sign and decimal digits without leading zeros
// ("0" for zero, never negative).
struct BigInt {
  bool negative = false;
  std::string magnitude = "0";
};

std::string StripLeadingZeros(std::string_view digits) {
  const size_t first = digits.find_first_not_of('0');
  return first == std::string_view::npos ? "0" : std::string(digits.substr(first));
}

int CompareMagnitudes(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  return a.compare(b) < 0 ? -1 : a == b ? 0 : 1;
}

std::string AddMagnitudes(const std::string& a, const std::string& b) {
  std::string sum;
  int carry = 0;
  for (size_t i = 0; i < std::max(a.size(), b.size()) || carry; ++i) {
    int d = carry;
    if (i < a.size()) d += a[a.size() - 1 - i] - '0';
    if (i < b.size()) d += b[b.size() - 1 - i] - '0';
    sum.push_back(static_cast<char>('0' + d % 10));
    carry = d / 10;
  }
  std::reverse(sum.begin(), sum.end());
  return sum;
}

// a - b, for a >= b.
std::string SubtractMagnitudes(const std::string& a, const std::string& b) {
  std::string diff;
  int borrow = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    int d = (a[a.size() - 1 - i] - '0') - borrow - (i < b.size() ? b[b.size() - 1 - i] - '0' : 0);
    borrow = d < 0;
    diff.push_back(static_cast<char>('0' + (d + 10) % 10));
  }
  std::reverse(diff.begin(), diff.end());
  return StripLeadingZeros(diff);
}

BigInt Add(const BigInt& a, const BigInt& b) {
  BigInt r;
  if (a.negative == b.negative) {
    r.magnitude = AddMagnitudes(a.magnitude, b.magnitude);
    r.negative = a.negative;
  } else if (CompareMagnitudes(a.magnitude, b.magnitude) >= 0) {
    r.magnitude = SubtractMagnitudes(a.magnitude, b.magnitude);
    r.negative = a.negative;
  } else {
    r.magnitude = SubtractMagnitudes(b.magnitude, a.magnitude);
    r.negative = b.negative;
  }
  if (r.magnitude == "0") r.negative = false;
  return r;
}

BigInt FromInt(int64_t v) {
  BigInt r;
  r.negative = v < 0;
  // The shifts added here are bounded by a text's length, far from INT64_MIN.
  r.magnitude = std::to_string(v < 0 ? -v : v);
  return r;
}

// A number's decimal value as significant digits (no leading or trailing
// zeros) times a power of ten, so that equal values have equal forms. The
// exponent is kept as digits: 1e999999999999999999999 stays a short string.
struct Decimal {
  bool zero = true;
  bool negative = false;
  std::string digits;
  BigInt exponent;
  bool operator==(const Decimal& o) const {
    if (zero || o.zero) return zero == o.zero;  // -0 equals 0
    return negative == o.negative && digits == o.digits && exponent.negative == o.exponent.negative &&
           exponent.magnitude == o.exponent.magnitude;
  }
};

std::optional<Decimal> ToDecimal(std::string_view text) {
  std::optional<NumberParts> p = SplitNumber(text);
  if (!p) return std::nullopt;
  Decimal d;
  std::string all = std::string(p->integer) + std::string(p->fraction);
  const size_t first = all.find_first_not_of('0');
  if (first == std::string::npos) return d;  // zero, whatever its sign or exponent
  const size_t last = all.find_last_not_of('0');
  d.zero = false;
  d.negative = p->negative;
  d.digits = all.substr(first, last - first + 1);
  // value = digits * 10^(exponent + trailing zeros dropped - fraction digits)
  const int64_t shift = static_cast<int64_t>(all.size() - 1 - last) - static_cast<int64_t>(p->fraction.size());
  BigInt written;
  written.magnitude = StripLeadingZeros(p->exponent);
  written.negative = p->exponent_negative && written.magnitude != "0";
  d.exponent = Add(written, FromInt(shift));
  return d;
}

// `text` with each number outside strings replaced by what `replace` gives
// for it (or kept when it gives nothing). A number is a maximal run of the
// characters numbers are made of, starting with '-' or a digit; anything
// else, malformed strings included, is copied for the JSON parser to judge.
template <typename Replace>
std::string RewriteNumbers(std::string_view text, Replace&& replace) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '"') {
      size_t j = i + 1;
      while (j < text.size() && text[j] != '"') j += text[j] == '\\' ? 2 : 1;
      j = std::min(j + 1, text.size());
      out.append(text.substr(i, j - i));
      i = j;
    } else if (c == '-' || IsDigit(c)) {
      size_t j = i;
      while (j < text.size() && InNumberRun(text[j])) ++j;
      const std::string_view run = text.substr(i, j - i);
      std::optional<std::string> with = replace(run);
      out.append(with ? std::string_view(*with) : run);
      i = j;
    } else {
      out.push_back(c);
      ++i;
    }
  }
  return out;
}

}  // namespace

bool SameNumber(std::string_view a, std::string_view b) {
  std::optional<Decimal> x = ToDecimal(a), y = ToDecimal(b);
  return x && y && *x == *y;
}

core::Result<ExactDocument> ParseExact(std::string_view text, std::string_view what) {
  ExactDocument doc;
  // A malformed number is left in place: the parser then refuses the text,
  // since two values cannot stand side by side without a separator.
  const std::string indexed = RewriteNumbers(text, [&](std::string_view run) -> std::optional<std::string> {
    if (!SplitNumber(run)) return std::nullopt;
    doc.numbers.emplace_back(run);
    return std::to_string(doc.numbers.size() - 1);
  });
  core::Result<nlohmann::json> tree = core::ParseJsonStrict(indexed, what);
  if (!tree.ok()) return tree.status();
  doc.tree = std::move(*tree);
  return doc;
}

core::Result<nlohmann::json> ExactValue(const nlohmann::json& value, const std::vector<std::string>& numbers,
                                  std::string_view where) {
  if (value.is_number_unsigned()) {
    const uint64_t at = value.get<uint64_t>();
    if (at >= numbers.size()) return core::Error{std::string(where) + ": internal error: a number out of place"};
    const std::string& text = numbers[at];
    nlohmann::json parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded() || !parsed.is_number() || !SameNumber(text, core::DumpJson(parsed))) {
      return core::Error{std::string(where) + " holds the number " + text.substr(0, 64) +
                   (text.size() > 64 ? "..." : "") +
                   ", which cannot be carried exactly (more than 64-bit integers or doubles hold): "
                   "carry it as a string"};
    }
    return parsed;
  }
  if (value.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const nlohmann::json& element : value) {
      core::Result<nlohmann::json> e = ExactValue(element, numbers, where);
      if (!e.ok()) return e;
      out.push_back(std::move(*e));
    }
    return out;
  }
  if (value.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [key, member] : value.items()) {
      core::Result<nlohmann::json> m = ExactValue(member, numbers, where);
      if (!m.ok()) return m;
      out[key] = std::move(*m);
    }
    return out;
  }
  return value;
}

bool ExactEqual(const nlohmann::json& draft, const nlohmann::json& signed_value,
                const std::vector<std::string>& numbers) {
  if (draft.is_number()) {
    if (!signed_value.is_number_unsigned()) return false;
    const uint64_t at = signed_value.get<uint64_t>();
    return at < numbers.size() && SameNumber(core::DumpJson(draft), numbers[at]);
  }
  if (draft.is_array()) {
    if (!signed_value.is_array() || signed_value.size() != draft.size()) return false;
    for (size_t i = 0; i < draft.size(); ++i) {
      if (!ExactEqual(draft[i], signed_value[i], numbers)) return false;
    }
    return true;
  }
  if (draft.is_object()) {
    if (!signed_value.is_object() || signed_value.size() != draft.size()) return false;
    for (const auto& [key, member] : draft.items()) {
      auto it = signed_value.find(key);
      if (it == signed_value.end() || !ExactEqual(member, *it, numbers)) return false;
    }
    return true;
  }
  if (draft.is_string() || draft.is_boolean() || draft.is_null()) {
    return draft.type() == signed_value.type() && draft == signed_value;
  }
  return false;
}

std::string DumpExact(const nlohmann::json& value, const std::vector<std::string>& numbers) {
  // Every number in the tree is a position; dumped, each is a run of digits.
  return RewriteNumbers(core::DumpJson(value), [&](std::string_view run) -> std::optional<std::string> {
    if (run.empty() || run.size() > 19 || !std::all_of(run.begin(), run.end(), IsDigit)) return std::nullopt;
    uint64_t at = 0;
    for (char c : run) at = at * 10 + static_cast<uint64_t>(c - '0');
    if (at >= numbers.size()) return std::nullopt;
    return numbers[at];
  });
}

}  // namespace ampoule::gate
