#include "ampoule/kernel/tar_archive.h"

#include <gtest/gtest.h>

#include "ampoule/kernel/tar_testing.h"

namespace ampoule::kernel {
namespace {

using testing_tar::End;
using testing_tar::Member;

core::Result<std::vector<TarFile>> Read(const std::string& bytes) {
  return ReadTar({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
}

TEST(TarArchive, ReadsFilesAndSkipsDirectories) {
  std::string tar = Member("./", "", '5') + Member("./Europe/", "", '5') +
                    Member("./Europe/Paris", "TZif-paris") + Member("./UTC", std::string(600, 'u')) +
                    End();
  auto files = Read(tar);
  ASSERT_TRUE(files.ok()) << files.message();
  ASSERT_EQ(files->size(), 2u);
  EXPECT_EQ((*files)[0].path, "Europe/Paris");
  EXPECT_EQ(std::string((*files)[0].bytes.begin(), (*files)[0].bytes.end()), "TZif-paris");
  EXPECT_EQ((*files)[1].path, "UTC");
  EXPECT_EQ((*files)[1].bytes.size(), 600u);
}

TEST(TarArchive, RefusesWhatThePackerNeverWrites) {
  auto refused = [](const std::string& tar, const std::string& why) {
    auto r = Read(tar);
    EXPECT_FALSE(r.ok()) << why;
    return r.ok() ? std::string() : r.message();
  };
  EXPECT_NE(refused(Member("link", "", '2') + End(), "symlink").find("only regular files"),
            std::string::npos);
  refused(Member("hard", "", '1') + End(), "hard link");
  refused(Member("../escape", "x") + End(), "dot-dot");
  refused(Member("/abs", "x") + End(), "absolute");
  refused(Member("a//b", "x") + End(), "empty component");
  refused(Member("a", "x"), "no end blocks");
  refused(Member("a", std::string(100, 'x')).substr(0, 600), "data past the end");
  std::string bad_sum = Member("a", "x") + End();
  bad_sum[0] = 'b';
  refused(bad_sum, "checksum");
  std::string bad_size = Member("a", "x") + End();
  bad_size[124] = '9';
  refused(bad_size, "a spoiled size field");
  EXPECT_TRUE(Read(End()).ok());  // an empty archive
  EXPECT_FALSE(Read("").ok());
}

}  // namespace
}  // namespace ampoule::kernel
