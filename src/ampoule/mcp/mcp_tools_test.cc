// The real tools through a session, on the real kernel: a run_python
// receipt that verify_receipt verifies and replays, a tampered output that
// fails, a guest failure that is still a result, and gate_submit deciding
// on a tool's receipt. Skipped without a kernel.
#include <sys/stat.h>

#include <ctime>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "ampoule/kernel/default_path.h"
#include "ampoule/mcp/json_schema.h"
#include "ampoule/mcp/server_impl.h"
#include "ampoule/mcp/temp_dir.h"
#include "ampoule/receipt/key_file.h"
#include "core/rfc3339.h"

namespace ampoule::mcp {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kProgram =
    "import json\n"
    "rows = open('/input/numbers.txt').read().split()\n"
    "print(json.dumps({'total': str(sum(int(r) for r in rows))}))\n";

// (module (func (export "_start")) (memory (export "memory") 1))
constexpr const char* kTinyWasm = "AGFzbQEAAAABBAFgAAADAgEABQMBAAEHEwIGX3N0YXJ0AAAGbWVtb3J5AgAKBAECAAs=";

class ToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    kernel_ = kernel::DefaultKernelPath();
    std::error_code ec;
    if (kernel_.empty() || !fs::is_regular_file(kernel_, ec)) {
      GTEST_SKIP() << "skipped: no kernel (set AMPOULE_KERNEL or build one with scripts/build-kernel.sh)";
    }
    core::Result<std::unique_ptr<TempDir>> dir = TempDir::Make("test");
    ASSERT_TRUE(dir.ok()) << dir.message();
    dir_ = std::move(*dir);
    key_path_ = dir_->path() + "/agent.key";
    ASSERT_TRUE(receipt::WriteKeyPair(key_path_, core::ed25519::SecretKey::Generate()).ok());
  }

  void Start(const std::string& policy = "") {
    ServerOptions options{kernel_, key_path_, {}, policy};
    core::Result<std::shared_ptr<Server>> server = Server::Create(options);
    ASSERT_TRUE(server.ok()) << server.message();
    server_ = *server;
    session_ = server_->NewSession();
    json init = *session_->Handle({{"jsonrpc", "2.0"},
                                   {"id", 0},
                                   {"method", "initialize"},
                                   {"params", {{"protocolVersion", "2025-11-25"}, {"capabilities", json::object()},
                                               {"clientInfo", {{"name", "t"}, {"version", "1"}}}}}});
    ASSERT_TRUE(init.contains("result"));
    json list = *session_->Handle({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/list"}});
    for (const json& t : list["result"]["tools"]) output_schemas_[t["name"]] = t["outputSchema"];
  }

  // The tools/call result; checks structuredContent against the listed
  // outputSchema and against the text content.
  json CallTool(const std::string& name, const json& arguments) {
    std::optional<json> r = session_->Handle(
        {{"jsonrpc", "2.0"}, {"id", ++id_}, {"method", "tools/call"}, {"params", {{"name", name}, {"arguments", arguments}}}});
    EXPECT_TRUE(r && r->contains("result")) << (r ? r->dump() : "no response");
    if (!r || !r->contains("result")) return json();
    json res = (*r)["result"];
    if (res["isError"] == false) {
      core::Status s = CheckAgainstSchema(output_schemas_[name], res["structuredContent"]);
      EXPECT_TRUE(s.ok()) << name << ": " << s.message();
      EXPECT_EQ(json::parse(res["content"][0]["text"].get<std::string>()), res["structuredContent"]);
    }
    return res;
  }

  json RunTotal() {
    json res = CallTool("run_python", {{"code", kProgram}, {"inputs", {{"numbers.txt", "1 2 3 39\n"}}}});
    EXPECT_EQ(res["isError"], false) << res.dump();
    return res["structuredContent"];
  }

  std::string kernel_, key_path_;
  std::unique_ptr<TempDir> dir_;
  std::shared_ptr<Server> server_;
  std::unique_ptr<Session> session_;
  std::map<std::string, json> output_schemas_;
  int id_ = 10;
};

TEST_F(ToolsTest, RunPythonGivesOutputAndAReceiptThatVerifiesAndReplays) {
  Start();
  json run = RunTotal();
  EXPECT_EQ(run["stdout"], "{\"total\": \"45\"}\n");
  EXPECT_EQ(run["status"], 0);
  EXPECT_EQ(run["stop"], "exit");
  EXPECT_GT(run["fuel_used"].get<uint64_t>(), 0u);
  EXPECT_EQ(run["record"]["runtime"], "python");
  EXPECT_TRUE(run["receipt"].contains("payload"));
  EXPECT_TRUE(run["receipt"].contains("signatures"));

  json base = {{"receipt", run["receipt"]}, {"code", kProgram}, {"inputs", {{"numbers.txt", "1 2 3 39\n"}}},
               {"output", run["stdout"]}};
  json verified = CallTool("verify_receipt", base)["structuredContent"];
  EXPECT_EQ(verified["result_line"], "VERIFIED") << verified.dump();
  EXPECT_EQ(verified["exit_code"], 0);
  EXPECT_EQ(verified["verified"], true);
  EXPECT_EQ(verified["record"]["program"]["sha256"], run["record"]["program"]["sha256"]);

  json replay_args = base;
  replay_args["replay"] = true;
  json replayed = CallTool("verify_receipt", replay_args)["structuredContent"];
  EXPECT_EQ(replayed["result_line"], "REPLAY OK") << replayed.dump();

  // The receipt as JSON text works the same.
  json as_text = base;
  as_text["receipt"] = run["receipt"].dump();
  EXPECT_EQ(CallTool("verify_receipt", as_text)["structuredContent"]["result_line"], "VERIFIED");
}

TEST_F(ToolsTest, ATamperedOutputOrInputFails) {
  Start();
  json run = RunTotal();
  json args = {{"receipt", run["receipt"]}, {"code", kProgram}, {"inputs", {{"numbers.txt", "1 2 3 39\n"}}},
               {"output", "{\"total\": \"4500\"}\n"}};
  json res = CallTool("verify_receipt", args);
  EXPECT_EQ(res["isError"], false);
  EXPECT_EQ(res["structuredContent"]["exit_code"], 1);
  EXPECT_EQ(res["structuredContent"]["result_line"], "FAILED");
  EXPECT_FALSE(res["structuredContent"]["notes"].empty());

  args["output"] = run["stdout"];
  args["inputs"]["numbers.txt"] = "1 2 3 40\n";
  EXPECT_EQ(CallTool("verify_receipt", args)["structuredContent"]["result_line"], "FAILED");
}

TEST_F(ToolsTest, AReceiptSignedByAnotherKeyFails) {
  Start();
  json run = RunTotal();
  // A second server with its own key does not trust the first one's.
  std::string other = dir_->path() + "/other.key";
  ASSERT_TRUE(receipt::WriteKeyPair(other, core::ed25519::SecretKey::Generate()).ok());
  key_path_ = other;
  Start();
  json res = CallTool("verify_receipt", {{"receipt", run["receipt"]}});
  EXPECT_EQ(res["structuredContent"]["exit_code"], 1) << res.dump();
}

TEST_F(ToolsTest, AGuestThatFailsIsAResultNotAnError) {
  Start();
  json res = CallTool("run_python", {{"code", "import sys\nprint('partial')\nsys.exit(3)\n"}});
  EXPECT_EQ(res["isError"], false);
  EXPECT_EQ(res["structuredContent"]["status"], 3);
  EXPECT_EQ(res["structuredContent"]["stdout"], "partial\n");
  json fuel = CallTool("run_javascript", {{"code", "while (true) {}"}, {"fuel", 100000}});
  EXPECT_EQ(fuel["isError"], false);
  EXPECT_EQ(fuel["structuredContent"]["status"], 127);
  EXPECT_EQ(fuel["structuredContent"]["stop"], "fuel");
}

TEST_F(ToolsTest, JavaScriptRunsWithStdinAndSeed) {
  Start();
  json res = CallTool("run_javascript",
                      {{"code", "console.log('js ok')"}, {"stdin", "ignored"}, {"seed", 7}});
  EXPECT_EQ(res["isError"], false) << res.dump();
  EXPECT_EQ(res["structuredContent"]["stdout"], "js ok\n");
  EXPECT_EQ(res["structuredContent"]["record"]["seed"], 7);
}

TEST_F(ToolsTest, ArgumentsThatCannotRunAreToolErrors) {
  Start();
  EXPECT_EQ(CallTool("run_wasm", {{"module_base64", "not base64!"}})["isError"], true);
  // A module without _start cannot run at all; one with it runs.
  json empty = CallTool("run_wasm", {{"module_base64", "AGFzbQEAAAA="}});
  EXPECT_EQ(empty["isError"], true);
  EXPECT_NE(empty["content"][0]["text"].get<std::string>().find("could not be run"), std::string::npos);
  json ok = CallTool("run_wasm", {{"module_base64", kTinyWasm}});
  EXPECT_EQ(ok["isError"], false) << ok.dump();
  EXPECT_EQ(ok["structuredContent"]["status"], 0);
  EXPECT_EQ(ok["structuredContent"]["record"]["runtime"], "wasm");
  EXPECT_EQ(CallTool("run_python", {{"code", "1"}, {"inputs", {{"../x", "a"}}}})["isError"], true);
  EXPECT_EQ(CallTool("run_python", {{"code", "1"}, {"inputs", {{"a", "x"}}}, {"inputs_base64", {{"a", "eA=="}}}})["isError"],
            true);
  EXPECT_EQ(CallTool("verify_receipt", {{"receipt", "{}"}, {"replay", true}})["isError"], true);
  EXPECT_EQ(CallTool("gate_submit", {{"draft", json::object()}, {"receipt", "{}"}, {"code", "x"}, {"output", ""}})["isError"],
            true);
}

TEST_F(ToolsTest, GateSubmitSendsOnceThenEscalatesTheDuplicate) {
  Start();
  json run = RunTotal();
  std::string policy = dir_->path() + "/policy.json";
  {
    std::ofstream f(policy);
    f << json{{"trusted_keys", {key_path_ + ".pub"}},
              {"kernel_sha256", run["record"]["kernel"]["sha256"]},
              {"max_data_age_seconds", 86400},
              {"replay_fuel_ceiling", 20000000000ull},
              {"decision_log", "gate.db"},
              {"outbox", "outbox"}}
             .dump();
  }
  Start(policy);
  json args = {{"draft",
                {{"kind", "payout"},
                 {"idempotency_key", "payout:1"},
                 {"fields", {{"total", {{"value", "45"}, {"from", "/total"}}}}},
                 {"data_as_of", core::Rfc3339Seconds(time(nullptr))}}},
               {"receipt", run["receipt"]},
               {"code", kProgram},
               {"inputs", {{"numbers.txt", "1 2 3 39\n"}}},
               {"output", run["stdout"]}};
  json first = CallTool("gate_submit", args);
  ASSERT_EQ(first["isError"], false) << first.dump();
  EXPECT_EQ(first["structuredContent"]["decision"], "send") << first.dump();
  EXPECT_TRUE(first["structuredContent"].contains("outbox_file"));
  json second = CallTool("gate_submit", args);
  EXPECT_EQ(second["structuredContent"]["decision"], "escalate") << second.dump();

  args["draft"]["idempotency_key"] = "payout:2";
  args["draft"]["fields"]["total"]["value"] = "46";
  EXPECT_EQ(CallTool("gate_submit", args)["structuredContent"]["decision"], "hold");
}

TEST(ServerCreate, ErrorsNameTheOption) {
  EXPECT_NE(Server::Create({"", "", {}, ""}).message().find("--key"), std::string::npos);
  EXPECT_NE(Server::Create({"", "/nonexistent/key", {}, ""}).message().find("--key"), std::string::npos);
  core::Result<std::unique_ptr<TempDir>> dir = TempDir::Make("test");
  ASSERT_TRUE(dir.ok());
  std::string key = (*dir)->path() + "/k";
  ASSERT_TRUE(receipt::WriteKeyPair(key, core::ed25519::SecretKey::Generate()).ok());
  EXPECT_NE(Server::Create({"/nonexistent/kernel", key, {}, ""}).message().find("--kernel"), std::string::npos);
  EXPECT_NE(Server::Create({"", key, {"/nonexistent.pub"}, ""}).message().find("--trusted-keys"), std::string::npos);
}

}  // namespace
}  // namespace ampoule::mcp
