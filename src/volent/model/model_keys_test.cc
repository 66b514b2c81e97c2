// Model keys: the model_keys section of volent.yaml (paths resolved like
// data_dir, capabilities bound to allowlist entries, one key each) and the
// key files read at node start (keys.h): trailing newline stripped, a
// missing or empty file an error naming the file and not the key, a file
// readable by every user a warning.
#include "volent/model/keys.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

namespace volent::model {
namespace {

namespace fs = std::filesystem;

constexpr char kConfig[] =
    "apiVersion: volent/v1\n"
    "kind: NodeConfig\n"
    "egress:\n"
    "  allow:\n"
    "    - {capability: model.anthropic, scheme: https, host: api.anthropic.com}\n"
    "    - {capability: model.openai, scheme: https, host: api.openai.com}\n"
    "model_keys:\n"
    "  - capability: model.anthropic\n"
    "    key_file: secrets/anthropic-key\n"
    "  - capability: model.openai\n"
    "    key_file: /run/secrets/openai-key\n";

std::string Problems(const std::string& text) {
  manifest::Checked<manifest::NodeConfig> config = manifest::LoadNodeConfig(text, "volent.yaml", "/etc/volent");
  std::string all;
  for (const manifest::Problem& p : config.problems) all += (all.empty() ? "" : "\n") + manifest::FormatProblem(p);
  return all;
}

class KeyFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("volent-model-keys-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& content, mode_t mode = 0600) {
    std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << content;
    chmod(path.c_str(), mode);
    return path;
  }
  fs::path dir_;
};

TEST(ModelKeysConfig, SectionIsReadAndPathsResolved) {
  manifest::Checked<manifest::NodeConfig> config = manifest::LoadNodeConfig(kConfig, "volent.yaml", "/etc/volent");
  ASSERT_TRUE(config.ok()) << Problems(kConfig);
  ASSERT_EQ(config.value->model_keys.size(), 2u);
  EXPECT_EQ(config.value->model_keys[0].capability, "model.anthropic");
  EXPECT_EQ(config.value->model_keys[0].key_file, "/etc/volent/secrets/anthropic-key");
  EXPECT_EQ(config.value->model_keys[1].key_file, "/run/secrets/openai-key");
}

TEST(ModelKeysConfig, Problems) {
  std::string text = kConfig;
  text.replace(text.find("capability: model.openai\n    key_file"), 24, "capability: model.gemini");
  EXPECT_EQ(Problems(text),
            "volent.yaml:10:17: /model_keys/1/capability: capability \"model.gemini\" has no entry in egress.allow, "
            "so this key could never be sent: add one or remove the key");
  text = kConfig;
  text.replace(text.find("capability: model.openai\n    key_file"), 24, "capability: model.anthropic");
  EXPECT_EQ(Problems(text),
            "volent.yaml:10:17: /model_keys/1/capability: a second key for capability \"model.anthropic\" (also "
            "model_keys entry 0): one key per capability");
  // The key itself is never written inline.
  text = std::string(kConfig) + "  - {capability: model.openai, key: sk-inline}\n";
  std::string problems = Problems(text);
  EXPECT_NE(problems.find("/model_keys/2"), std::string::npos) << problems;
  EXPECT_NE(problems.find("key_file"), std::string::npos) << problems;
}

TEST_F(KeyFiles, TrailingNewlineIsStripped) {
  LoadedKeys loaded = LoadModelKeys({{"model.anthropic", Write("a", "sk-ant-123\n")},
                                     {"model.openai", Write("o", "sk-oai-456\r\n\n")}});
  ASSERT_TRUE(loaded.ok()) << loaded.errors.at(0);
  EXPECT_TRUE(loaded.warnings.empty());
  ASSERT_NE(loaded.keys.Find("model.anthropic"), nullptr);
  EXPECT_EQ(*loaded.keys.Find("model.anthropic"), "sk-ant-123");
  EXPECT_EQ(*loaded.keys.Find("model.openai"), "sk-oai-456");
  EXPECT_EQ(loaded.keys.Find("model.other"), nullptr);
}

TEST_F(KeyFiles, MissingFileIsAnErrorNamingTheFile) {
  const std::string missing = (dir_ / "nope").string();
  LoadedKeys loaded = LoadModelKeys({{"model.anthropic", missing}, {"model.openai", Write("o", "sk-oai-456")}});
  ASSERT_EQ(loaded.errors.size(), 1u);
  EXPECT_EQ(loaded.errors[0], "model key file " + missing +
                                  " (capability model.anthropic) cannot be read: No such file or directory; write the "
                                  "key into it, or remove the model_keys entry");
  EXPECT_EQ(loaded.keys.Find("model.anthropic"), nullptr);
  EXPECT_NE(loaded.keys.Find("model.openai"), nullptr);  // the others are still read
}

TEST_F(KeyFiles, BadContentIsAnErrorThatDoesNotShowTheKey) {
  LoadedKeys loaded = LoadModelKeys({{"a", Write("empty", "\n")},
                                     {"b", Write("two", "sk-SECRET-one\nsk-SECRET-two\n")},
                                     {"c", Write("ctl", std::string("sk-SECRET\0x", 11))}});
  ASSERT_EQ(loaded.errors.size(), 3u);
  EXPECT_NE(loaded.errors[0].find("is empty"), std::string::npos) << loaded.errors[0];
  EXPECT_NE(loaded.errors[1].find("more than one line or a control character"), std::string::npos) << loaded.errors[1];
  for (const std::string& e : loaded.errors) EXPECT_EQ(e.find("SECRET"), std::string::npos) << e;
  EXPECT_EQ(loaded.keys.size(), 0u);

  loaded = LoadModelKeys({{"d", dir_.string()}});
  ASSERT_EQ(loaded.errors.size(), 1u);
  EXPECT_NE(loaded.errors[0].find("is not a regular file"), std::string::npos) << loaded.errors[0];
}

TEST_F(KeyFiles, FileReadableByEveryUserIsAWarning) {
  const std::string path = Write("a", "sk-ant-123\n", 0644);
  LoadedKeys loaded = LoadModelKeys({{"model.anthropic", path}});
  ASSERT_TRUE(loaded.ok());
  ASSERT_EQ(loaded.warnings.size(), 1u);
  EXPECT_EQ(loaded.warnings[0], "model key file " + path +
                                    " (capability model.anthropic) is readable by every user (mode 0644): run chmod "
                                    "o-r " + path);
  EXPECT_EQ(*loaded.keys.Find("model.anthropic"), "sk-ant-123");
  loaded = LoadModelKeys({{"model.anthropic", Write("g", "k", 0640)}});  // group-readable: a secrets group is fine
  EXPECT_TRUE(loaded.warnings.empty());
}

}  // namespace
}  // namespace volent::model
