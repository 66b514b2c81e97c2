// The stdio transport over real pipes: one JSON message per line, tool
// calls in flight side by side, oversized lines refused without stopping,
// and the end of the input waiting for the calls still running.
#include <unistd.h>

#include <csignal>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

#include "ampoule/mcp/server_impl.h"
#include "ampoule/mcp/stdio.h"

namespace ampoule::mcp {
namespace {

using nlohmann::json;

// Calls of the "meet" tool wait until `expected` of them are running at
// once (or give up after a minute and say so): it proves concurrency
// without measuring time.
struct Meeting {
  std::mutex mu;
  std::condition_variable cv;
  int arrived = 0;
  int expected = 2;
  bool released = false;  // for "hold": set by the test
};

std::vector<Tool> TestTools(std::shared_ptr<Meeting> m) {
  json in = {{"type", "object"}, {"properties", {{"n", {{"type", "integer"}}}}}};
  json out = {{"type", "object"}, {"properties", {{"n", {{"type", "integer"}}}}}};
  return {
      {"meet", "", "waits for the others", in, out,
       [m](const json& a) {
         std::unique_lock<std::mutex> lock(m->mu);
         ++m->arrived;
         m->cv.notify_all();
         if (!m->cv.wait_for(lock, std::chrono::seconds(60), [&] { return m->arrived >= m->expected; })) {
           return ToolResult::Fail("the other calls never ran alongside");
         }
         return ToolResult::Ok({{"n", a.value("n", 0)}});
       }},
      {"hold", "", "waits for the test", in, out,
       [m](const json& a) {
         std::unique_lock<std::mutex> lock(m->mu);
         ++m->arrived;
         m->cv.notify_all();
         m->cv.wait(lock, [&] { return m->released; });
         return ToolResult::Ok({{"n", a.value("n", 0)}});
       }},
  };
}

struct Pipes {
  int in[2];
  int out[2];
  Pipes() {
    EXPECT_EQ(pipe(in), 0);
    EXPECT_EQ(pipe(out), 0);
  }
  ~Pipes() {
    for (int fd : {in[0], in[1], out[0], out[1]}) {
      if (fd >= 0) close(fd);
    }
  }
  void Send(const std::string& text) {
    size_t done = 0;
    while (done < text.size()) {
      ssize_t n = write(in[1], text.data() + done, text.size() - done);
      ASSERT_GT(n, 0);
      done += size_t(n);
    }
  }
  void CloseInput() {
    close(in[1]);
    in[1] = -1;
  }
  // Reads the output to its end (the writer side closed).
  std::vector<json> ReadAll() {
    std::string all;
    char buf[4096];
    ssize_t n;
    while ((n = read(out[0], buf, sizeof buf)) > 0) all.append(buf, size_t(n));
    std::vector<json> lines;
    size_t start = 0;
    while (start < all.size()) {
      size_t nl = all.find('\n', start);
      EXPECT_NE(nl, std::string::npos) << "a response without its newline";
      if (nl == std::string::npos) break;
      json m = json::parse(all.substr(start, nl - start), nullptr, false);
      EXPECT_FALSE(m.is_discarded()) << all.substr(start, nl - start);
      lines.push_back(m);
      start = nl + 1;
    }
    return lines;
  }
};

const std::string kInit =
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})"
    "\n"
    R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
    "\n";

std::string CallLine(int id, const std::string& tool, int n) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"},
              {"params", {{"name", tool}, {"arguments", {{"n", n}}}}}}
             .dump() +
         "\n";
}

const json* ById(const std::vector<json>& lines, const json& id) {
  for (const json& l : lines) {
    if (l.contains("id") && l["id"] == id) return &l;
  }
  return nullptr;
}

TEST(Stdio, OneResponsePerRequestLineAndToolCallsRunSideBySide) {
  auto meeting = std::make_shared<Meeting>();
  meeting->expected = 3;
  Pipes p;
  std::thread server([&] {
    core::Status s = ServeStdio(NewServerWithTools(TestTools(meeting)), p.in[0], p.out[1]);
    EXPECT_TRUE(s.ok()) << s.message();
    close(p.out[1]);
    p.out[1] = -1;
  });
  p.Send(kInit);
  p.Send("\n   \n");                                           // blank lines are skipped
  p.Send(CallLine(2, "meet", 20) + CallLine(3, "meet", 30));  // both wait for the third
  p.Send(R"({"jsonrpc":"2.0","id":"p","method":"ping"})" "\r\n");
  p.Send(CallLine(4, "meet", 40));
  p.Send(R"({"jsonrpc":"2.0","id":5,"method":"tools/list"})");  // the last line has no newline
  p.CloseInput();
  std::vector<json> lines = p.ReadAll();
  server.join();

  ASSERT_EQ(lines.size(), 6u);
  for (int id : {2, 3, 4}) {
    const json* r = ById(lines, id);
    ASSERT_NE(r, nullptr) << id;
    EXPECT_EQ((*r)["result"]["isError"], false) << r->dump();
    EXPECT_EQ((*r)["result"]["structuredContent"]["n"], id * 10);
  }
  ASSERT_NE(ById(lines, "p"), nullptr);
  EXPECT_EQ((*ById(lines, "p"))["result"], json::object());
  ASSERT_NE(ById(lines, 5), nullptr);
  EXPECT_EQ((*ById(lines, 5))["result"]["tools"].size(), 2u);
  EXPECT_EQ(lines[0]["id"], 1);  // answered in order, before any tool call
}

TEST(Stdio, AnOversizedLineGetsAnErrorAndServingGoesOn) {
  Pipes p;
  StdioOptions options;
  options.max_line_bytes = 100;
  std::thread server([&] {
    EXPECT_TRUE(ServeStdio(NewServerWithTools({}), p.in[0], p.out[1], options).ok());
    close(p.out[1]);
    p.out[1] = -1;
  });
  std::thread writer([&] {
    p.Send(R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":")" + std::string(100000, 'x') +
           "\"}}\n");
    p.Send(R"({"jsonrpc":"2.0","id":2,"method":"ping"})" "\n");
    p.Send("not json\n");
    p.CloseInput();
  });
  std::vector<json> lines = p.ReadAll();
  writer.join();
  server.join();
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0]["error"]["code"], kInvalidRequest);
  EXPECT_TRUE(lines[0]["id"].is_null());
  EXPECT_EQ(lines[1]["id"], 2);
  EXPECT_EQ(lines[1]["result"], json::object());
  EXPECT_EQ(lines[2]["error"]["code"], kParseError);
}

TEST(Stdio, TheEndOfTheInputWaitsForCallsInFlight) {
  auto meeting = std::make_shared<Meeting>();
  Pipes p;
  bool returned = false;
  std::mutex returned_mu;
  std::thread server([&] {
    EXPECT_TRUE(ServeStdio(NewServerWithTools(TestTools(meeting)), p.in[0], p.out[1]).ok());
    std::lock_guard<std::mutex> lock(returned_mu);
    returned = true;
  });
  p.Send(kInit + CallLine(7, "hold", 70));
  p.CloseInput();
  {
    // The call is running and the input has ended: ServeStdio must still be
    // waiting for it.
    std::unique_lock<std::mutex> lock(meeting->mu);
    meeting->cv.wait(lock, [&] { return meeting->arrived == 1; });
  }
  {
    std::lock_guard<std::mutex> lock(returned_mu);
    EXPECT_FALSE(returned);
  }
  {
    std::lock_guard<std::mutex> lock(meeting->mu);
    meeting->released = true;
    meeting->cv.notify_all();
  }
  server.join();
  close(p.out[1]);
  p.out[1] = -1;
  std::vector<json> lines = p.ReadAll();
  ASSERT_EQ(lines.size(), 2u);
  ASSERT_NE(ById(lines, 7), nullptr);
  EXPECT_EQ((*ById(lines, 7))["result"]["structuredContent"]["n"], 70);
}

TEST(Stdio, AClosedOutputIsAnError) {
  Pipes p;
  close(p.out[0]);
  p.out[0] = -1;
  signal(SIGPIPE, SIG_IGN);
  p.Send(R"({"jsonrpc":"2.0","id":1,"method":"ping"})" "\n");
  p.CloseInput();
  core::Status s = ServeStdio(NewServerWithTools({}), p.in[0], p.out[1]);
  EXPECT_FALSE(s.ok());
}

}  // namespace
}  // namespace ampoule::mcp
