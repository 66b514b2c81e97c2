// Idempotency keys and kinds as an attacker would spell them: one key in two
// normal forms, invisible characters, controls, separators, direction
// overrides, broken UTF-8, overlong names.
#include <gtest/gtest.h>

#include "ampoule/gate/names.h"

namespace ampoule::gate {
namespace {

std::string Repeat(const std::string& s, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

TEST(GateNames, OneKeyInBothNormalForms) {
  const std::string nfc = "refund:caf\xC3\xA9";    // U+00E9
  const std::string nfd = "refund:cafe\xCC\x81";   // e + U+0301
  ASSERT_NE(nfc, nfd);
  core::Result<std::string> a = NormaliseName(nfc, "key"), b = NormaliseName(nfd, "key");
  ASSERT_TRUE(a.ok()) << a.message();
  ASSERT_TRUE(b.ok()) << b.message();
  EXPECT_EQ(*a, nfc);
  EXPECT_EQ(*b, nfc);
  // Ordinary names, interior spaces included, are kept as they are.
  for (const char* ok : {"refund:A-1002", "refund A 1002", "\xE6\x89\x95\xE3\x81\x84\xE6\x88\xBB\xE3\x81\x97:7",
                         "\xF0\x9F\x92\xB6 refund"}) {
    core::Result<std::string> n = NormaliseName(ok, "key");
    ASSERT_TRUE(n.ok()) << ok << ": " << n.message();
    EXPECT_EQ(*n, ok);
  }
}

TEST(GateNames, RefusesWhatAReaderCannotSee) {
  struct Case {
    std::string name, error;
  } cases[] = {
      {"refund:A-1 ", "ends with a space"},
      {" refund:A-1", "starts with a space"},
      {"refund:A-1\t", "U+0009, a control character"},
      {"refund:\nA-1", "U+000A, a control character"},
      {std::string("refund:A\0-1", 11), "U+0000, a control character"},
      {"refund:A-1\x7F", "U+007F, a control character"},
      {"refund:A-1\xC2\x85", "U+0085, a control character"},             // NEL, C1
      {"refund:A-1\xC2\x9B", "U+009B, a control character"},             // CSI, C1
      {"refund:A\xE2\x80\x8B-1", "U+200B, an invisible format character"},  // zero-width space
      {"refund:A\xE2\x80\x8D-1", "U+200D"},                              // zero-width joiner
      {"\xEF\xBB\xBFrefund:A-1", "U+FEFF"},                              // byte order mark
      {"refund:A-1\xE2\x80\x8E", "U+200E"},                              // left-to-right mark
      {"refund:A-1\xE2\x80\x8F", "U+200F"},                              // right-to-left mark
      {"refund:\xE2\x80\xAA" "A-1", "U+202A"},                           // embedding
      {"refund:\xE2\x80\xAE" "1-A", "U+202E, an invisible format character"},  // right-to-left override
      {"refund:\xE2\x81\xA6" "A-1\xE2\x81\xA9", "U+2066"},               // isolate
      {"refund:A\xC2\xAD-1", "U+00AD"},                                  // soft hyphen
      {"refund:A-1\xE2\x80\xA8", "U+2028, a line separator"},
      {"refund:A-1\xE2\x80\xA9", "U+2029, a paragraph separator"},
      {"refund:A\xC2\xA0-1", "U+00A0, a space other than U+0020"},       // no-break space
      {"refund:A\xE3\x80\x80-1", "U+3000, a space other than U+0020"},   // ideographic space
      {"refund:A\xEE\x80\x80-1", "U+E000, a private-use character"},
      {"refund:A\xCD\xB8-1", "U+0378, an unassigned code point"},
      {"refund:A\xEF\xBF\xBE-1", "U+FFFE, an unassigned code point"},    // noncharacter
      {"refund:A-1\xFF", "not valid UTF-8 (at byte 11)"},
      {"refund:A-1\xC3", "not valid UTF-8"},                             // truncated sequence
      {"refund:\xC0\xAF", "not valid UTF-8"},                            // overlong '/'
      {"refund:\xED\xA0\x80", "not valid UTF-8"},                        // a surrogate, encoded
      {"refund:\xF4\x90\x80\x80", "not valid UTF-8"},                    // beyond U+10FFFF
      {"", "is empty"},
  };
  for (const Case& c : cases) {
    core::Result<std::string> n = NormaliseName(c.name, "the draft's idempotency_key");
    ASSERT_FALSE(n.ok()) << c.error;
    EXPECT_NE(n.message().find(c.error), std::string::npos) << c.error << " -> " << n.message();
    EXPECT_EQ(n.message().rfind("the draft's idempotency_key", 0), 0u) << n.message();
  }
}

TEST(GateNames, TheLimitIsInCodePointsAfterNormalising) {
  EXPECT_TRUE(NormaliseName(std::string(256, 'k'), "key").ok());
  core::Result<std::string> long_ascii = NormaliseName(std::string(257, 'k'), "key");
  ASSERT_FALSE(long_ascii.ok());
  EXPECT_NE(long_ascii.message().find("257 code points long"), std::string::npos) << long_ascii.message();
  EXPECT_NE(long_ascii.message().find("at most 256 code points"), std::string::npos) << long_ascii.message();
  // 256 accented letters are 512 bytes: the limit counts code points, not bytes.
  EXPECT_TRUE(NormaliseName(Repeat("\xC3\xA9", 256), "key").ok());
  EXPECT_FALSE(NormaliseName(Repeat("\xC3\xA9", 257), "key").ok());
  // Written decomposed they are 512 code points, 256 once composed.
  core::Result<std::string> nfd = NormaliseName(Repeat("e\xCC\x81", 256), "key");
  ASSERT_TRUE(nfd.ok()) << nfd.message();
  EXPECT_EQ(*nfd, Repeat("\xC3\xA9", 256));
  // Four-byte characters count once each.
  EXPECT_TRUE(NormaliseName(Repeat("\xF0\x9F\x92\xB6", 256), "key").ok());
  EXPECT_FALSE(NormaliseName(Repeat("\xF0\x9F\x92\xB6", 257), "key").ok());
}

}  // namespace
}  // namespace ampoule::gate
