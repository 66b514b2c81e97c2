#include "mcp/stdio.h"

#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#include "mcp/server_impl.h"

namespace ampoule::mcp {
namespace {

// What the reader and the workers share; held by shared_ptr so a worker
// finishing after the reader returned never touches freed memory.
struct Shared {
  int out_fd = -1;
  std::unique_ptr<Session> session;
  std::mutex write_mu;
  std::string write_error;  // first failed write
  std::mutex count_mu;
  std::condition_variable count_cv;
  int in_flight = 0;

  void Write(const nlohmann::json& response) {
    std::string line = SerializeMessage(response);
    line += '\n';
    std::lock_guard<std::mutex> lock(write_mu);
    if (!write_error.empty()) return;
    size_t done = 0;
    while (done < line.size()) {
      ssize_t n = write(out_fd, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        write_error = std::string("cannot write to the output: ") + (n < 0 ? strerror(errno) : "closed");
        return;
      }
      done += size_t(n);
    }
  }

  void Answer(std::string_view text) {
    std::optional<nlohmann::json> response = session->HandleText(text);
    if (response) Write(*response);
  }

  bool Broken() {
    std::lock_guard<std::mutex> lock(write_mu);
    return !write_error.empty();
  }
};

bool Blank(std::string_view line) { return line.find_first_not_of(" \t\r") == std::string_view::npos; }

// A tool call may take minutes; everything else is answered at once. A
// line that merely mentions tools/call elsewhere also goes to a worker,
// which only costs a thread.
bool MayBeToolCall(std::string_view line) { return line.find("tools/call") != std::string_view::npos; }

}  // namespace

Status ServeStdio(std::shared_ptr<Server> server, int in_fd, int out_fd, const StdioOptions& options) {
  auto shared = std::make_shared<Shared>();
  shared->out_fd = out_fd;
  shared->session = server->NewSession();

  auto handle_line = [&](std::string line) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (Blank(line)) return;
    if (!MayBeToolCall(line)) {
      shared->Answer(line);
      return;
    }
    {
      std::unique_lock<std::mutex> lock(shared->count_mu);
      shared->count_cv.wait(lock, [&] { return shared->in_flight < options.max_in_flight; });
      ++shared->in_flight;
    }
    std::thread([shared, line = std::move(line)] {
      shared->Answer(line);
      std::lock_guard<std::mutex> lock(shared->count_mu);
      --shared->in_flight;
      shared->count_cv.notify_all();
    }).detach();
  };

  std::string pending;
  bool discarding = false;  // inside a line over the cap
  std::string read_error;
  char buf[65536];
  while (!shared->Broken()) {
    ssize_t n = read(in_fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      read_error = std::string("cannot read the input: ") + strerror(errno);
      break;
    }
    if (n == 0) break;
    std::string_view chunk(buf, size_t(n));
    while (!chunk.empty()) {
      size_t nl = chunk.find('\n');
      std::string_view part = chunk.substr(0, nl);
      if (!discarding) pending.append(part);
      if (pending.size() > options.max_line_bytes) {
        discarding = true;
        pending.clear();
        pending.shrink_to_fit();
      }
      if (nl == std::string_view::npos) break;
      chunk.remove_prefix(nl + 1);
      if (discarding) {
        shared->Write(ErrorResponse(nullptr, kInvalidRequest,
                                    "Invalid Request: a message longer than " +
                                        std::to_string(options.max_line_bytes) + " bytes was dropped"));
        discarding = false;
      } else {
        handle_line(std::move(pending));
      }
      pending.clear();
    }
  }
  // A last message without its newline still counts.
  if (!discarding && !pending.empty() && read_error.empty()) handle_line(std::move(pending));

  {
    std::unique_lock<std::mutex> lock(shared->count_mu);
    shared->count_cv.wait(lock, [&] { return shared->in_flight == 0; });
  }
  if (!read_error.empty()) return Error{read_error};
  std::lock_guard<std::mutex> lock(shared->write_mu);
  if (!shared->write_error.empty()) return Error{shared->write_error};
  return Status::Ok();
}

}  // namespace ampoule::mcp
