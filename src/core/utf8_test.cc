#include "core/utf8.h"

#include <gtest/gtest.h>

#include <string>

namespace core {
namespace {

TEST(Utf8, ValidAndInvalid) {
  EXPECT_TRUE(IsValidUtf8("plain"));
  EXPECT_TRUE(IsValidUtf8("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"));
  EXPECT_FALSE(IsValidUtf8("\xff"));
  EXPECT_FALSE(IsValidUtf8("\xc3"));
  EXPECT_FALSE(IsValidUtf8("\xc0\x80"));          // overlong
  EXPECT_FALSE(IsValidUtf8("\xed\xa0\x80"));      // surrogate
  EXPECT_FALSE(IsValidUtf8("\xf4\x90\x80\x80"));  // past U+10FFFF
}

TEST(Utf8, EdgesOfEachForm) {
  EXPECT_TRUE(IsValidUtf8(std::string("\0", 1)));
  EXPECT_TRUE(IsValidUtf8("\x7f\xc2\x80\xdf\xbf"));           // U+007F, U+0080, U+07FF
  EXPECT_TRUE(IsValidUtf8("\xe0\xa0\x80\xef\xbf\xbf"));        // U+0800, U+FFFF
  EXPECT_TRUE(IsValidUtf8("\xf0\x90\x80\x80\xf4\x8f\xbf\xbf"));  // U+10000, U+10FFFF
  EXPECT_FALSE(IsValidUtf8("\xe0\x9f\xbf"));                  // overlong 3-byte
  EXPECT_FALSE(IsValidUtf8("\xf0\x8f\xbf\xbf"));              // overlong 4-byte
  EXPECT_FALSE(IsValidUtf8("\x80"));                          // stray continuation
  EXPECT_FALSE(IsValidUtf8("\xe2\x82"));                      // cut short
  EXPECT_FALSE(IsValidUtf8("\xe2\x28\xa1"));                  // bad continuation
}

}  // namespace
}  // namespace core
