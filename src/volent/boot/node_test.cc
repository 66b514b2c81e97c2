// boot::Node in process: the node `volent node` starts, on a free port, with
// a data folder it creates; an agent applied through its control API is
// still there after a restart; a bad --listen or an unreadable model key
// stops the start with a message. The data folder and credentials.json
// are trusted only when no one else can change them, and one node at a
// time runs on a data folder.
#include "volent/boot/node.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sys/stat.h>

#include <fstream>
#include <thread>

#include "core/http/loopback_client.h"
#include "volent/access/credentials.h"

namespace volent::boot {
namespace {

using Client = core::httpd::testing::LoopbackClient;

constexpr char kConfig[] =
    "apiVersion: volent/v1\n"
    "kind: NodeConfig\n"
    "listen: 127.0.0.1:8470\n"
    "egress:\n"
    "  allow:\n"
    "    - capability: orders\n"
    "      scheme: http\n"
    "      cidr: 127.0.0.1/32\n"
    "      port: 9\n";

constexpr char kAgent[] =
    "apiVersion: volent/v1\n"
    "kind: Agent\n"
    "metadata:\n"
    "  name: keep\n"
    "spec:\n"
    "  model:\n"
    "    provider: anthropic\n"
    "    name: claude-test\n"
    "    endpoint: http://127.0.0.1:9\n"
    "    capability: orders\n"
    "  instructions: answer\n";

class NodeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/boot_node_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  manifest::NodeConfig Config(const std::string& text = kConfig) {
    auto checked = manifest::LoadNodeConfig(text, "volent.yaml", dir_);
    EXPECT_TRUE(checked.ok()) << (checked.problems.empty() ? "" : manifest::FormatProblem(checked.problems[0]));
    return checked.value.value_or(manifest::NodeConfig{});
  }

  NodeOptions Options() {
    NodeOptions options;
    options.listen = "127.0.0.1:0";
    options.data_dir = dir_ + "/nested/data";
    return options;
  }

  static std::string Get(int port, const std::string& path, const std::string& auth) {
    Client c(port);
    EXPECT_TRUE(c.Send("GET " + path + " HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n"));
    return c.ReadResponse();
  }

  // The Authorization header line of the bootstrap admin token the node
  // wrote at its first start (mode 0600).
  std::string BootstrapAuth() {
    const std::string path = dir_ + "/nested/data/" + kBootstrapTokenFile;
    struct stat st {};
    EXPECT_EQ(stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    std::ifstream in(path);
    std::string token;
    std::getline(in, token);
    return "Authorization: Bearer " + token + "\r\n";
  }

  std::string dir_;
};

// Development mode (no authentication) listens on loopback only; any other
// address is refused, whatever its spelling.
TEST(DevelopmentMode, IsRefusedBeyondLoopback) {
  manifest::ControlConfig dev;
  dev.development_no_auth = true;
  for (const char* host : {"127.0.0.1", "127.0.0.2", "::1", "localhost"}) {
    EXPECT_TRUE(CheckDevelopmentMode(dev, host).ok()) << host;
  }
  for (const char* host : {"0.0.0.0", "::", "10.0.0.1", "192.168.1.1", "localhost.example", "::ffff:127.0.0.1", ""}) {
    core::Status refused = CheckDevelopmentMode(dev, host);
    ASSERT_FALSE(refused.ok()) << host;
    EXPECT_EQ(refused.kind(), core::ErrorKind::kInvalidArgument);
    EXPECT_NE(refused.message().find("loopback only"), std::string::npos) << refused.message();
  }
  manifest::ControlConfig authenticated;
  EXPECT_TRUE(CheckDevelopmentMode(authenticated, "0.0.0.0").ok());
}

TEST_F(NodeTest, ServesItsControlApiAndKeepsAgentsAcrossARestart) {
  {
    auto node = Node::Start(Config(), Options());
    ASSERT_TRUE(node.ok()) << node.message();
    EXPECT_GT((*node)->port(), 0);
    EXPECT_EQ((*node)->url(), "http://127.0.0.1:" + std::to_string((*node)->port()));
    std::thread serving([&] { (*node)->Run(); });
    EXPECT_NE(Get((*node)->port(), "/healthz", "").find(" 401 "), std::string::npos);
    Client c((*node)->port());
    const std::string body = kAgent;
    ASSERT_TRUE(c.Send("POST /v1/agents HTTP/1.1\r\nHost: x\r\nContent-Type: application/yaml\r\n" + BootstrapAuth() +
                       "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body));
    const std::string applied = c.ReadResponse();
    EXPECT_NE(applied.find(" 201 "), std::string::npos) << applied;
    (*node)->Stop();
    serving.join();
  }
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/nested/data/agents.db"));
  auto again = Node::Start(Config(), Options());
  ASSERT_TRUE(again.ok()) << again.message();
  std::thread serving([&] { (*again)->Run(); });
  const std::string agent = Get((*again)->port(), "/v1/agents/keep", BootstrapAuth());
  EXPECT_NE(agent.find(" 200 "), std::string::npos) << agent;
  (*again)->Stop();
  serving.join();
}

TEST_F(NodeTest, RefusesABadListenAddress) {
  NodeOptions options = Options();
  options.listen = "::1:8470";
  auto node = Node::Start(Config(), options);
  ASSERT_FALSE(node.ok());
  EXPECT_NE(node.message().find("--listen '::1:8470' must put an IPv6 address in brackets"), std::string::npos)
      << node.message();
}

TEST_F(NodeTest, AMissingModelKeyStopsTheStart) {
  std::string config = kConfig;
  config += "model_keys:\n  - capability: orders\n    key_file: missing.key\n";
  auto node = Node::Start(Config(config), Options());
  ASSERT_FALSE(node.ok());
  EXPECT_NE(node.message().find("missing.key"), std::string::npos) << node.message();
}

TEST_F(NodeTest, ADataFolderOthersMayWriteIsRefused) {
  const std::string data = Options().data_dir;
  std::filesystem::create_directories(data);
  ASSERT_EQ(chmod(data.c_str(), 0775), 0);
  auto node = Node::Start(Config(), Options());
  ASSERT_FALSE(node.ok());
  EXPECT_NE(node.message().find("refusing the folder " + data), std::string::npos) << node.message();
  EXPECT_NE(node.message().find("chmod go-w"), std::string::npos) << node.message();
  EXPECT_FALSE(std::filesystem::exists(data + "/credentials.json")) << "refused before anything was written";
  ASSERT_EQ(chown(data.c_str(), 65534, 65534) == 0 && chmod(data.c_str(), 0700) == 0, geteuid() == 0);
  if (geteuid() == 0) {
    auto foreign = Node::Start(Config(), Options());
    ASSERT_FALSE(foreign.ok());
    EXPECT_NE(foreign.message().find("owned by uid 65534"), std::string::npos) << foreign.message();
  }
}

TEST_F(NodeTest, ACredentialsFileOthersCouldHaveChangedStopsTheStart) {
  {
    auto node = Node::Start(Config(), Options());  // makes credentials.json
    ASSERT_TRUE(node.ok()) << node.message();
  }
  const std::string file = Options().data_dir + "/" + access::kCredentialsFile;
  ASSERT_TRUE(std::filesystem::exists(file));
  // Writable by others (what replacing it with one's own admin token needs).
  ASSERT_EQ(chmod(file.c_str(), 0666), 0);
  auto loose = Node::Start(Config(), Options());
  ASSERT_FALSE(loose.ok());
  EXPECT_NE(loose.message().find(file), std::string::npos) << loose.message();
  EXPECT_NE(loose.message().find("chmod go-w"), std::string::npos) << loose.message();
  ASSERT_EQ(chmod(file.c_str(), 0600), 0);
  // Owned by another user, mode 0600 (its owner may write it).
  if (geteuid() == 0) {
    ASSERT_EQ(chown(file.c_str(), 65534, 65534), 0);
    auto foreign = Node::Start(Config(), Options());
    ASSERT_FALSE(foreign.ok());
    EXPECT_NE(foreign.message().find("chown"), std::string::npos) << foreign.message();
    ASSERT_EQ(chown(file.c_str(), 0, 0), 0);
  }
  // A link swapped in for it, to a file of the right owner and mode.
  const std::string elsewhere = dir_ + "/elsewhere.json";
  std::filesystem::rename(file, elsewhere);
  std::filesystem::create_symlink(elsewhere, file);
  auto linked = Node::Start(Config(), Options());
  ASSERT_FALSE(linked.ok());
  EXPECT_NE(linked.message().find("symbolic link"), std::string::npos) << linked.message();
  std::filesystem::remove(file);
  std::filesystem::rename(elsewhere, file);
  auto again = Node::Start(Config(), Options());
  EXPECT_TRUE(again.ok()) << again.message();
}

TEST_F(NodeTest, OneNodeAtATimeRunsOnADataFolder) {
  auto first = Node::Start(Config(), Options());
  ASSERT_TRUE(first.ok()) << first.message();
  auto second = Node::Start(Config(), Options());
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.message().find("in use by volent node, pid " + std::to_string(getpid())), std::string::npos)
      << second.message();
  first->reset();  // stopped: the lock is released
  auto third = Node::Start(Config(), Options());
  EXPECT_TRUE(third.ok()) << third.message();
}

}  // namespace
}  // namespace volent::boot
