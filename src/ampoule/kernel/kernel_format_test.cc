// The kernel file layout: packing is deterministic and canonical, and every
// malformation of a hostile file is a clean error.
#include "ampoule/kernel/kernel_format.h"
#include "core/hex.h"
#include "core/sha256.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace ampoule::kernel {
namespace {

std::vector<uint8_t> Bytes(std::string_view s) { return {s.begin(), s.end()}; }

std::vector<uint8_t> PackOk(const std::vector<PackEntry>& entries) {
  auto packed = PackKernel(entries);
  EXPECT_TRUE(packed.ok()) << packed.message();
  return packed.ok() ? *packed : std::vector<uint8_t>{};
}

void PutU64(std::vector<uint8_t>& file, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) file[at + i] = uint8_t(v >> (8 * i));
}

// Offsets of the fields of table record `i`.
size_t RecordAt(size_t i) { return kKernelHeaderBytes + i * kKernelRecordBytes; }
size_t OffsetField(size_t i) { return RecordAt(i) + kKernelNameField; }
size_t SizeField(size_t i) { return OffsetField(i) + 8; }

std::string ParseError(const std::vector<uint8_t>& file) {
  auto parsed = ParseKernelLayout(file);
  return parsed.ok() ? "(parsed)" : parsed.message();
}

class KernelFormatTest : public ::testing::Test {
 protected:
  std::vector<uint8_t> a_ = Bytes("alpha"), b_ = Bytes(std::string(5000, 'b')), c_;
  std::vector<uint8_t> file_ = PackOk({{"b/two", b_}, {"a", a_}, {"c", c_}});
};

TEST_F(KernelFormatTest, EntriesAreSortedAlignedAndRoundTrip) {
  auto parsed = ParseKernelLayout(file_);
  ASSERT_TRUE(parsed.ok()) << parsed.message();
  ASSERT_EQ(parsed->size(), 3u);
  EXPECT_EQ((*parsed)[0].name, "a");
  EXPECT_EQ((*parsed)[1].name, "b/two");
  EXPECT_EQ((*parsed)[2].name, "c");
  EXPECT_EQ((*parsed)[0].offset, 4096u);
  EXPECT_EQ((*parsed)[1].offset, 8192u);
  EXPECT_EQ((*parsed)[2].offset, 16384u);  // 8192 + 5000 rounded up
  EXPECT_EQ((*parsed)[2].size, 0u);
  EXPECT_EQ(file_.size(), 16384u);  // ends where the last entry ends
  EXPECT_EQ(core::Sha256Hex(std::span(file_).subspan(8192, 5000)), core::HexEncode((*parsed)[1].sha256));
  EXPECT_EQ(std::memcmp(file_.data(), "AMPKERNL", 8), 0);
}

TEST_F(KernelFormatTest, PackingIsDeterministicWhateverTheInputOrder) {
  EXPECT_EQ(PackOk({{"c", c_}, {"a", a_}, {"b/two", b_}}), file_);
}

TEST(KernelFormat, KnownEmptyKernelBytes) {
  auto file = PackOk({});
  ASSERT_EQ(file.size(), kKernelHeaderBytes);
  EXPECT_EQ(core::Sha256Hex(file), core::Sha256Hex(file));
  EXPECT_TRUE(ParseKernelLayout(file).ok());
}

TEST(KernelFormat, PackRefusesBadNamesAndDuplicates) {
  std::vector<uint8_t> x = Bytes("x");
  EXPECT_FALSE(PackKernel(std::vector<PackEntry>{{"a", x}, {"a", x}}).ok());
  for (std::string bad : std::vector<std::string>{"", "/a", "a/", "a//b", "../a", "a/./b", "a b", std::string(80, 'n'), "a\\b"}) {
    EXPECT_FALSE(PackKernel(std::vector<PackEntry>{{bad, x}}).ok()) << bad;
  }
  EXPECT_TRUE(PackKernel(std::vector<PackEntry>{{std::string(79, 'n'), x}}).ok());
  std::vector<PackEntry> many(kMaxKernelEntries + 1);
  for (size_t i = 0; i < many.size(); ++i) many[i].name = "e" + std::to_string(i);
  EXPECT_NE(PackKernel(many).message().find("at most 256"), std::string::npos);
}

TEST_F(KernelFormatTest, TruncatedFilesAreRefused) {
  for (size_t n : {size_t(0), size_t(10), size_t(63), size_t(64), size_t(200), size_t(4096), file_.size() - 1}) {
    std::vector<uint8_t> cut(file_.begin(), file_.begin() + n);
    EXPECT_NE(ParseError(cut).find("malformed"), std::string::npos) << n << ": " << ParseError(cut);
  }
}

TEST_F(KernelFormatTest, BadMagicVersionAndReservedBytes) {
  auto f = file_;
  f[0] = 'X';
  EXPECT_NE(ParseError(f).find("not an ampoule kernel"), std::string::npos);
  f = file_;
  f[8] = 2;
  EXPECT_NE(ParseError(f).find("format version 2"), std::string::npos);
  f = file_;
  f[40] = 1;
  EXPECT_NE(ParseError(f).find("reserved"), std::string::npos);
}

TEST_F(KernelFormatTest, HugeCountIsRefusedBeforeReadingTheTable) {
  auto f = file_;
  f[12] = 0xff, f[13] = 0xff, f[14] = 0xff, f[15] = 0xff;
  EXPECT_NE(ParseError(f).find("claims 4294967295 entries"), std::string::npos);
}

TEST_F(KernelFormatTest, EntriesOutsideTheFileOverlappingOrMisalignedAreRefused) {
  auto f = file_;
  PutU64(f, SizeField(1), uint64_t(1) << 62);
  EXPECT_NE(ParseError(f).find("past the end"), std::string::npos);
  f = file_;
  PutU64(f, OffsetField(1), UINT64_MAX - 4095);
  EXPECT_NE(ParseError(f).find("past the end"), std::string::npos);
  f = file_;
  PutU64(f, OffsetField(1), 4096);  // on top of entry "a"
  EXPECT_NE(ParseError(f).find("overlaps"), std::string::npos);
  f = file_;
  PutU64(f, OffsetField(0), 0);  // on top of the header
  EXPECT_NE(ParseError(f).find("overlaps"), std::string::npos);
  f = file_;
  PutU64(f, OffsetField(1), 8193);
  EXPECT_NE(ParseError(f).find("not a multiple of 4096"), std::string::npos);
  f = file_;
  PutU64(f, SizeField(0), 4);  // shorter: its successor now leaves... nothing; padding is non-zero
  EXPECT_NE(ParseError(f).find("padding"), std::string::npos);
}

TEST_F(KernelFormatTest, UnsortedDuplicateAndInvalidNamesAreRefused) {
  auto f = file_;
  f[RecordAt(1)] = 'a';
  f[RecordAt(1) + 1] = 0;
  f[RecordAt(1) + 2] = 0, f[RecordAt(1) + 3] = 0, f[RecordAt(1) + 4] = 0;
  EXPECT_NE(ParseError(f).find("duplicate"), std::string::npos);
  f = file_;
  f[RecordAt(0)] = 'z';
  EXPECT_NE(ParseError(f).find("not sorted"), std::string::npos);
  f = file_;
  std::memset(&f[RecordAt(0)], 'x', kKernelNameField);
  EXPECT_NE(ParseError(f).find("NUL-terminated"), std::string::npos);
  f = file_;
  f[RecordAt(0)] = '/';
  EXPECT_NE(ParseError(f).find("invalid name"), std::string::npos);
  f = file_;
  f[RecordAt(0) + 3] = 'q';  // after the NUL ending "a"
  EXPECT_NE(ParseError(f).find("after the name"), std::string::npos);
}

TEST_F(KernelFormatTest, TrailingBytesAndWrongDeclaredSizeAreRefused) {
  auto f = file_;
  f.push_back(0);
  EXPECT_NE(ParseError(f).find("header says"), std::string::npos);
  PutU64(f, 16, f.size());
  EXPECT_NE(ParseError(f).find("after the last entry"), std::string::npos);
}

TEST_F(KernelFormatTest, NonZeroPaddingIsRefused) {
  auto f = file_;
  f[4096 + 5] = 1;  // just after entry "a"
  EXPECT_NE(ParseError(f).find("padding before entry 'b/two'"), std::string::npos);
}

TEST(KernelFormat, Sha256OfKnownInput) {
  std::vector<uint8_t> abc = Bytes("abc");
  EXPECT_EQ(core::Sha256Hex(abc), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

}  // namespace
}  // namespace ampoule::kernel
