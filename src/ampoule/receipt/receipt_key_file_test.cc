// Key files: formats, permissions, refusing to overwrite.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "ampoule/receipt/key_file.h"
#include "core/base64.h"
#include "core/file_read.h"

namespace ampoule::receipt {
namespace {

class KeyFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ampoule-keyfile-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }

  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  void WriteText(const std::string& path, const std::string& text, mode_t mode) {
    std::ofstream(path) << text;
    ASSERT_EQ(chmod(path.c_str(), mode), 0);
  }
  static mode_t Mode(const std::string& path) {
    struct stat st;
    EXPECT_EQ(stat(path.c_str(), &st), 0);
    return st.st_mode & 07777;
  }

  std::string dir_;
};

TEST_F(KeyFileTest, KeyPairRoundTrips) {
  core::ed25519::SecretKey key = core::ed25519::SecretKey::Generate();
  ASSERT_TRUE(WriteKeyPair(Path("k"), key).ok());
  EXPECT_EQ(Mode(Path("k")), 0600u);
  EXPECT_EQ(Mode(Path("k.pub")), 0644u);

  core::Result<core::ed25519::SecretKey> secret = ReadSecretKeyFile(Path("k"));
  ASSERT_TRUE(secret.ok()) << secret.message();
  EXPECT_EQ(secret->public_key(), key.public_key());
  core::Result<core::ed25519::PublicKey> pub = ReadPublicKeyFile(Path("k.pub"));
  ASSERT_TRUE(pub.ok()) << pub.message();
  EXPECT_EQ(*pub, key.public_key());
}

TEST_F(KeyFileTest, PublicKeyFileIsDocumentedText) {
  core::ed25519::SecretKey key = core::ed25519::SecretKey::Generate();
  ASSERT_TRUE(WritePublicKeyFile(Path("k.pub"), key.public_key()).ok());
  core::Result<std::string> text = core::ReadFileCapped(Path("k.pub"));
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "# ampoule Ed25519 public key, keyid " + key.public_key().KeyId() +
                       "\ned25519 " + core::Base64Encode(key.public_key().raw()) + "\n");
}

TEST_F(KeyFileTest, RefusesToOverwrite) {
  WriteText(Path("k"), "precious\n", 0600);
  core::Status status = WriteKeyPair(Path("k"), core::ed25519::SecretKey::Generate());
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("refusing to overwrite"), std::string::npos);
  EXPECT_EQ(*core::ReadFileCapped(Path("k")), "precious\n");
  EXPECT_NE(access(Path("k.pub").c_str(), F_OK), 0);  // nothing half-written

  WriteText(Path("j.pub"), "precious\n", 0644);
  EXPECT_FALSE(WriteKeyPair(Path("j"), core::ed25519::SecretKey::Generate()).ok());
  EXPECT_NE(access(Path("j").c_str(), F_OK), 0);
  EXPECT_FALSE(WriteSecretKeyFile(Path("j.pub"), core::ed25519::SecretKey::Generate()).ok());
}

TEST_F(KeyFileTest, RefusesToWriteThroughASymlink) {
  ASSERT_EQ(symlink(Path("target").c_str(), Path("link").c_str()), 0);
  EXPECT_FALSE(WriteSecretKeyFile(Path("link"), core::ed25519::SecretKey::Generate()).ok());
  EXPECT_NE(access(Path("target").c_str(), F_OK), 0);
}

TEST_F(KeyFileTest, RefusesSecretKeyReadableByOthers) {
  core::ed25519::SecretKey key = core::ed25519::SecretKey::Generate();
  ASSERT_TRUE(WriteSecretKeyFile(Path("k"), key).ok());
  for (mode_t mode : {0640, 0604, 0660, 0620}) {
    ASSERT_EQ(chmod(Path("k").c_str(), mode), 0);
    core::Result<core::ed25519::SecretKey> read = ReadSecretKeyFile(Path("k"));
    ASSERT_FALSE(read.ok()) << std::oct << mode;
    EXPECT_NE(read.message().find("chmod 600"), std::string::npos) << read.message();
  }
  ASSERT_EQ(chmod(Path("k").c_str(), 0400), 0);
  EXPECT_TRUE(ReadSecretKeyFile(Path("k")).ok());
}

TEST_F(KeyFileTest, SecretAndPublicFilesAreNotInterchangeable) {
  core::ed25519::SecretKey key = core::ed25519::SecretKey::Generate();
  ASSERT_TRUE(WriteKeyPair(Path("k"), key).ok());
  ASSERT_EQ(chmod(Path("k.pub").c_str(), 0600), 0);
  core::Result<core::ed25519::SecretKey> secret = ReadSecretKeyFile(Path("k.pub"));
  ASSERT_FALSE(secret.ok());
  EXPECT_NE(secret.message().find("public key"), std::string::npos) << secret.message();
  core::Result<core::ed25519::PublicKey> pub = ReadPublicKeyFile(Path("k"));
  ASSERT_FALSE(pub.ok());
  EXPECT_NE(pub.message().find("secret key"), std::string::npos) << pub.message();
}

TEST_F(KeyFileTest, MalformedSecretKeysAreErrors) {
  for (const char* text : {"", "# only a comment\n", "ed25519-secret\n", "ed25519-secret !!\n",
                           "ed25519-secret AAAA\n", "rsa AAAA\n",
                           "ed25519-secret AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n"
                           "ed25519-secret AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n"}) {
    unlink(Path("bad").c_str());
    WriteText(Path("bad"), text, 0600);
    EXPECT_FALSE(ReadSecretKeyFile(Path("bad")).ok()) << text;
  }
  EXPECT_FALSE(ReadSecretKeyFile(Path("missing")).ok());
  EXPECT_FALSE(ReadSecretKeyFile(dir_).ok());
  ASSERT_EQ(mkfifo(Path("fifo").c_str(), 0600), 0);
  EXPECT_FALSE(ReadSecretKeyFile(Path("fifo")).ok());  // refused, without blocking
}

TEST(ParsePublicKeys, TrustedKeysFileWithCommentsAndBlankLines) {
  core::ed25519::SecretKey a = core::ed25519::SecretKey::Generate(), b = core::ed25519::SecretKey::Generate();
  std::string text = FormatPublicKey(a.public_key()) + "\n  \n# another\r\n" + "ed25519 " +
                     core::Base64Encode(b.public_key().raw()) + " laptop key\r\n";
  core::Result<std::vector<core::ed25519::PublicKey>> keys = ParsePublicKeys(text, "trusted");
  ASSERT_TRUE(keys.ok()) << keys.message();
  ASSERT_EQ(keys->size(), 2u);
  EXPECT_EQ((*keys)[0], a.public_key());
  EXPECT_EQ((*keys)[1], b.public_key());
}

TEST(ParsePublicKeys, ErrorsNameTheLine) {
  core::Result<std::vector<core::ed25519::PublicKey>> keys = ParsePublicKeys("# c\n\ned25519 !!\n", "trusted");
  ASSERT_FALSE(keys.ok());
  EXPECT_NE(keys.message().find("trusted:3"), std::string::npos) << keys.message();
}

TEST(ParsePublicKeys, RefusesWeakKeys) {
  std::string identity(32, '\0');
  identity[0] = 1;
  core::Result<std::vector<core::ed25519::PublicKey>> keys = ParsePublicKeys("ed25519 " + core::Base64Encode(identity), "t");
  ASSERT_FALSE(keys.ok());
  EXPECT_NE(keys.message().find("weak"), std::string::npos) << keys.message();
}

TEST(ParsePublicKeys, CapsTheNumberOfKeys) {
  std::string line = FormatPublicKey(core::ed25519::SecretKey::Generate().public_key());
  std::string text;
  for (size_t i = 0; i <= kMaxTrustedKeys; ++i) text += line;
  EXPECT_FALSE(ParsePublicKeys(text, "t").ok());
}

TEST_F(KeyFileTest, PublicKeyFileMustHoldExactlyOneKey) {
  std::string two = FormatPublicKey(core::ed25519::SecretKey::Generate().public_key()) +
                    FormatPublicKey(core::ed25519::SecretKey::Generate().public_key());
  WriteText(Path("two.pub"), two, 0644);
  EXPECT_FALSE(ReadPublicKeyFile(Path("two.pub")).ok());
  core::Result<std::vector<core::ed25519::PublicKey>> trusted = ReadTrustedKeysFile(Path("two.pub"));
  ASSERT_TRUE(trusted.ok()) << trusted.message();
  EXPECT_EQ(trusted->size(), 2u);
  WriteText(Path("none.pub"), "# nothing\n", 0644);
  EXPECT_FALSE(ReadTrustedKeysFile(Path("none.pub")).ok());
}

TEST_F(KeyFileTest, ReadFileCappedReportsTheCapApart) {
  WriteText(Path("f"), std::string(100, 'x'), 0644);
  bool over = false;
  EXPECT_TRUE(core::ReadFileCapped(Path("f"), 100, &over).ok());
  EXPECT_FALSE(over);
  EXPECT_FALSE(core::ReadFileCapped(Path("f"), 99, &over).ok());
  EXPECT_TRUE(over);
  EXPECT_FALSE(core::ReadFileCapped(Path("missing"), 99, &over).ok());
  EXPECT_FALSE(over);
  EXPECT_FALSE(core::ReadFileCapped("/dev/zero", 1000, &over).ok());  // endless: stops at the cap
  EXPECT_TRUE(over);
}

}  // namespace
}  // namespace ampoule::receipt
