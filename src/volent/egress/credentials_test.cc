// Loading the egress credentials (credentials.h): a file others may read or
// write is refused naming the file, CR, LF and other control bytes in the
// value are refused (header injection), one trailing newline is stripped,
// no error ever holds the value; headers the gate writes itself are refused.
#include "volent/egress/credentials.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace volent::egress {
namespace {

namespace fs = std::filesystem;

constexpr char kSecret[] = "s3cr3t-token-0123456789";

class CredentialsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("volent-credentials-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& bytes, mode_t mode = 0600) {
    const std::string path = (dir_ / name).string();
    {
      std::ofstream out(path, std::ios::binary);
      out << bytes;
    }
    chmod(path.c_str(), mode);
    return path;
  }

  static manifest::EgressCredential FromFile(const std::string& path, std::string header = "Authorization",
                                             std::string prefix = "Bearer ") {
    return {"orders", std::move(header), std::move(prefix), path, ""};
  }

  fs::path dir_;
};

TEST_F(CredentialsTest, AFileOfTheNodeAloneGivesTheHeaderValue) {
  const std::string path = Write("orders.token", std::string(kSecret) + "\n");
  auto loaded = LoadCredentials({FromFile(path)});
  ASSERT_TRUE(loaded.ok()) << loaded.message();
  ASSERT_EQ(loaded->count("orders"), 1u);
  const HeaderCredential& c = loaded->at("orders");
  EXPECT_EQ(c.name, "orders");
  EXPECT_EQ(c.header, "Authorization");
  EXPECT_EQ(c.secret, kSecret) << "one trailing newline is stripped";
  EXPECT_EQ(c.value, std::string("Bearer ") + kSecret);
  // CR LF (a file written on another system), and mode 0400 and 0640.
  for (mode_t mode : {mode_t{0400}, mode_t{0640}}) {
    auto again = LoadCredentials({FromFile(Write("crlf.token", std::string(kSecret) + "\r\n", mode))});
    ASSERT_TRUE(again.ok()) << again.message();
    EXPECT_EQ(again->at("orders").secret, kSecret);
  }
}

TEST_F(CredentialsTest, AFileOthersMayReadOrWriteIsRefusedNamingTheFile) {
  for (mode_t mode : {mode_t{0644}, mode_t{0604}, mode_t{0602}, mode_t{0620}, mode_t{0666}}) {
    const std::string path = Write("loose.token", kSecret, mode);
    auto loaded = LoadCredentials({FromFile(path)});
    ASSERT_FALSE(loaded.ok()) << std::oct << mode;
    EXPECT_NE(loaded.message().find("credential orders"), std::string::npos) << loaded.message();
    EXPECT_NE(loaded.message().find(path), std::string::npos) << loaded.message();
    EXPECT_NE(loaded.message().find("chmod 600"), std::string::npos) << loaded.message();
    EXPECT_EQ(loaded.message().find(kSecret), std::string::npos) << "the error holds the secret";
  }
}

TEST_F(CredentialsTest, ControlBytesInTheValueAreRefusedWithoutShowingIt) {
  // A second header (CR LF), a second request, a NUL, a tab, a bare CR, two
  // trailing newlines, bytes that are not ASCII.
  for (const std::string& bad :
       {std::string(kSecret) + "\r\nX-Injected: 1", std::string(kSecret) + "\nGET / HTTP/1.1",
        std::string(kSecret) + std::string(1, '\0') + "x", std::string(kSecret) + "\tx", std::string(kSecret) + "\rx",
        std::string(kSecret) + "\n\n", std::string(kSecret) + "\xc3\xa9"}) {
    auto loaded = LoadCredentials({FromFile(Write("bad.token", bad))});
    ASSERT_FALSE(loaded.ok()) << bad;
    EXPECT_NE(loaded.message().find("control character"), std::string::npos) << loaded.message();
    EXPECT_EQ(loaded.message().find(kSecret), std::string::npos) << "the error holds the secret";
  }
  EXPECT_FALSE(LoadCredentials({FromFile(Write("empty.token", "\n"))}).ok());
  EXPECT_FALSE(LoadCredentials({FromFile(Write("short.token", "abc"))}).ok());
  EXPECT_FALSE(LoadCredentials({FromFile(Write("space.token", std::string(" ") + kSecret))}).ok());
  EXPECT_FALSE(LoadCredentials({FromFile(Write("ok.token", kSecret), "Authorization", "Bearer\r\n")}).ok())
      << "a prefix with CR LF";
}

TEST_F(CredentialsTest, OnlyARegularFileOfBoundedSizeIsRead) {
  auto missing = LoadCredentials({FromFile((dir_ / "absent").string())});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find((dir_ / "absent").string()), std::string::npos) << missing.message();
  EXPECT_FALSE(LoadCredentials({FromFile(dir_.string())}).ok()) << "a folder";
  const std::string fifo = (dir_ / "fifo").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(LoadCredentials({FromFile(fifo)}).ok()) << "a FIFO (never waited on)";
  EXPECT_FALSE(LoadCredentials({FromFile(Write("big.token", std::string(kMaxCredentialBytes + 1, 'a')))}).ok());
}

TEST_F(CredentialsTest, TheEnvironmentIsReadThroughTheGivenReader) {
  manifest::EgressCredential spec{"orders", "X-Api-Key", "", "", "ORDERS_TOKEN"};
  auto env = [](const char* name) -> const char* {
    return std::string(name) == "ORDERS_TOKEN" ? kSecret : nullptr;
  };
  auto loaded = LoadCredentials({spec}, env);
  ASSERT_TRUE(loaded.ok()) << loaded.message();
  EXPECT_EQ(loaded->at("orders").value, kSecret);
  spec.value_env = "UNSET_TOKEN";
  auto unset = LoadCredentials({spec}, env);
  ASSERT_FALSE(unset.ok());
  EXPECT_NE(unset.message().find("UNSET_TOKEN is not set"), std::string::npos) << unset.message();
  auto injected = LoadCredentials({spec}, [](const char*) -> const char* { return "abcdefgh\r\nX-Injected: 1"; });
  EXPECT_FALSE(injected.ok());
}

TEST_F(CredentialsTest, HeadersTheGateWritesItselfAreRefused) {
  const std::string path = Write("orders.token", kSecret);
  for (const char* header : {"Host", "content-length", "Transfer-Encoding", "Connection", "Proxy-Authorization",
                             "X-Forwarded-For", "Idempotency-Key", "Bad Header", "", "X:Y"}) {
    auto loaded = LoadCredentials({FromFile(path, header)});
    EXPECT_FALSE(loaded.ok()) << header;
  }
  EXPECT_TRUE(LoadCredentials({FromFile(path, "Cookie", "session=")}).ok());
}

TEST_F(CredentialsTest, EveryProblemIsReportedOnce) {
  auto loaded = LoadCredentials({FromFile(Write("a.token", kSecret, 0644)),
                                 {"other", "Host", "", Write("b.token", kSecret), ""}});
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.message().find("credential orders"), std::string::npos) << loaded.message();
  EXPECT_NE(loaded.message().find("credential other"), std::string::npos) << loaded.message();
}

TEST(CredentialRedact, EveryOccurrenceIsReplaced) {
  std::string text = "a SECRET b SECRETSECRET c";
  EXPECT_EQ(Redact(text, "SECRET", RedactedMark("x")), 3u);
  EXPECT_EQ(text, "a [credential x] b [credential x][credential x] c");
  std::string none = "nothing here";
  EXPECT_EQ(Redact(none, "SECRET", "[x]"), 0u);
  EXPECT_EQ(none, "nothing here");
  EXPECT_EQ(Redact(none, "", "[x]"), 0u);
}

}  // namespace
}  // namespace volent::egress
