// A blocking HTTP client on a loopback socket, for the tests of the
// project's HTTP servers (core/http/server_test.cc, the control API's
// server test): raw bytes out, raw bytes back, so a test sees exactly what
// the server sent and when it closed. The receive timeout (5 s) only keeps
// a broken server from hanging a test; nothing asserts on it.
//
// Header-only, for tests; connects to 127.0.0.1 only, from 127.0.0.1 or
// another loopback address (a second "client address").
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace core::httpd::testing {

class LoopbackClient {
 public:
  explicit LoopbackClient(int port, const char* source = nullptr) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    if (source != nullptr) {
      sockaddr_in from{};
      from.sin_family = AF_INET;
      inet_pton(AF_INET, source, &from.sin_addr);
      bind(fd_, reinterpret_cast<sockaddr*>(&from), sizeof from);
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    timeval tv{5, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  ~LoopbackClient() { close(fd_); }
  LoopbackClient(const LoopbackClient&) = delete;
  LoopbackClient& operator=(const LoopbackClient&) = delete;

  bool connected() const { return connected_; }

  bool Send(std::string_view data) {
    while (!data.empty()) {
      ssize_t n = send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      data.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }
  void ShutdownWrite() { shutdown(fd_, SHUT_WR); }

  // Reads until the peer closes (or the timeout); what was read.
  std::string ReadAll() {
    std::string out;
    char buf[8192];
    while (true) {
      ssize_t n = recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) break;
      out.append(buf, static_cast<size_t>(n));
    }
    return out;
  }
  // Reads one response whose headers say Content-Length (or none).
  std::string ReadResponse() {
    std::string out;
    char buf[8192];
    while (true) {
      size_t end = out.find("\r\n\r\n");
      if (end != std::string::npos) {
        size_t length = 0;
        size_t cl = out.find("Content-Length: ");
        if (cl != std::string::npos && cl < end) length = std::stoul(out.substr(cl + 16));
        if (out.size() >= end + 4 + length) return out;
      }
      ssize_t n = recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) return out;
      out.append(buf, static_cast<size_t>(n));
    }
  }
  // Reads until `text` has arrived in what was read since the last
  // Forget(); false if the peer closed (or the timeout) first.
  bool ReadUntil(std::string_view text) {
    char buf[8192];
    while (seen_.find(text) == std::string::npos) {
      ssize_t n = recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) return false;
      seen_.append(buf, static_cast<size_t>(n));
    }
    return true;
  }
  const std::string& seen() const { return seen_; }
  void Forget() { seen_.clear(); }
  // True if the peer closed the connection within `wait`.
  bool ClosedWithin(std::chrono::milliseconds wait) {
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(wait.count())) <= 0) return false;
    char c;
    return recv(fd_, &c, 1, MSG_DONTWAIT) <= 0;
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
  std::string seen_;
};

// Sends `head` (a HEAD request) and `get` (a request saying Connection:
// close) together on one connection and reads to the end; returns what
// followed the first answer's header block. A HEAD answer has no body
// (RFC 9110 9.3.2), so in step this is the second answer, status line
// first. `head_answer`, if given, gets the first answer's header block.
inline std::string AfterHeadAnswer(int port, const std::string& head, const std::string& get,
                                   std::string* head_answer = nullptr) {
  LoopbackClient c(port);
  if (!c.Send(head + get)) return "(send failed)";
  std::string all = c.ReadAll();
  size_t end = all.find("\r\n\r\n");
  if (end == std::string::npos) return "(no header block: " + all + ")";
  if (head_answer) *head_answer = all.substr(0, end + 4);
  return all.substr(end + 4);
}

}  // namespace core::httpd::testing
