#include "ampoule/mcp/stdio.h"

#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ampoule/mcp/server_impl.h"
#include "core/errno_text.h"
#include "core/write_all.h"

namespace ampoule::mcp {
namespace {

// What the reader and the workers share.
struct Shared {
  int out_fd = -1;
  int max_in_flight = 1;
  std::unique_ptr<Session> session;

  std::mutex write_mu;
  std::string write_error;  // first failed write

  std::mutex jobs_mu;
  std::condition_variable jobs_cv;
  std::deque<std::string> jobs;
  int running = 0;
  bool closing = false;

  void Write(const nlohmann::json& response) {
    std::string line = SerializeMessage(response);
    line += '\n';
    std::lock_guard<std::mutex> lock(write_mu);
    if (!write_error.empty()) return;
    if (!core::WriteAll(out_fd, line)) write_error = "cannot write to the output: " + core::ErrnoText();
  }

  void Answer(std::string_view text) {
    std::optional<nlohmann::json> response = session->HandleText(text);
    if (response) Write(*response);
  }

  bool Broken() {
    std::lock_guard<std::mutex> lock(write_mu);
    return !write_error.empty();
  }

  // Queues a line for the workers, waiting while max_in_flight are queued
  // or running.
  void Enqueue(std::string line) {
    std::unique_lock<std::mutex> lock(jobs_mu);
    jobs_cv.wait(lock, [&] { return int(jobs.size()) + running < max_in_flight; });
    jobs.push_back(std::move(line));
    jobs_cv.notify_all();
  }

  // A worker: takes lines until closing and everything is done. Workers
  // leave together, only once no call is running (see ServeStdio).
  void Work() {
    std::unique_lock<std::mutex> lock(jobs_mu);
    for (;;) {
      jobs_cv.wait(lock, [&] { return !jobs.empty() || (closing && running == 0); });
      if (jobs.empty()) return;
      std::string line = std::move(jobs.front());
      jobs.pop_front();
      ++running;
      lock.unlock();
      Answer(line);
      lock.lock();
      --running;
      jobs_cv.notify_all();
    }
  }
};

bool Blank(std::string_view line) { return line.find_first_not_of(" \t\r") == std::string_view::npos; }

// A tool call may take minutes; everything else is answered at once. A
// line that merely mentions tools/call elsewhere also goes to a worker,
// which only costs ordering.
bool MayBeToolCall(std::string_view line) { return line.find("tools/call") != std::string_view::npos; }

}  // namespace

core::Status ServeStdio(std::shared_ptr<Server> server, int in_fd, int out_fd, const StdioOptions& options) {
  Shared shared;
  shared.out_fd = out_fd;
  shared.max_in_flight = std::max(1, options.max_in_flight);
  shared.session = server->NewSession();

  // The workers are started before any run and all leave after the last
  // one: no thread is created or ends while a run is starting its jail. A
  // run's jail child is a raw clone of this process, and glibc functions it
  // calls there (setresuid, setgroups) wait for threads that were being
  // created or were ending at the moment of the clone, which never finish
  // in the copy.
  std::vector<std::thread> workers;
  workers.reserve(size_t(shared.max_in_flight));
  for (int i = 0; i < shared.max_in_flight; ++i) workers.emplace_back([&shared] { shared.Work(); });

  auto handle_line = [&](std::string line) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (Blank(line)) return;
    if (MayBeToolCall(line)) {
      shared.Enqueue(std::move(line));
    } else {
      shared.Answer(line);
    }
  };

  std::string pending;
  bool discarding = false;  // inside a line over the cap
  std::string read_error;
  std::vector<char> buf(65536);
  while (!shared.Broken()) {
    ssize_t n = read(in_fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      read_error = "cannot read the input: " + core::ErrnoText();
      break;
    }
    if (n == 0) break;
    std::string_view chunk(buf.data(), size_t(n));
    while (!chunk.empty()) {
      size_t nl = chunk.find('\n');
      if (!discarding) pending.append(chunk.substr(0, nl));
      if (pending.size() > options.max_line_bytes) {
        discarding = true;
        pending.clear();
        pending.shrink_to_fit();
      }
      if (nl == std::string_view::npos) break;
      chunk.remove_prefix(nl + 1);
      if (discarding) {
        shared.Write(ErrorResponse(nullptr, kInvalidRequest,
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
    std::lock_guard<std::mutex> lock(shared.jobs_mu);
    shared.closing = true;
    shared.jobs_cv.notify_all();
  }
  for (std::thread& t : workers) t.join();
  if (!read_error.empty()) return core::Error{read_error};
  std::lock_guard<std::mutex> lock(shared.write_mu);
  if (!shared.write_error.empty()) return core::Error{shared.write_error};
  return core::Status::Ok();
}

}  // namespace ampoule::mcp
