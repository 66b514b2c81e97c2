// One request smuggling suite for every HTTP server of the project (the
// control API, MCP over HTTP, the mock model), for their tests: raw
// requests whose framing two parsers could read differently, each hiding a
// second request (the server's own `smuggled`) where a lenient parser would
// read it as the next request, and a loopback client that sends one case on
// a fresh connection and reads until the server closes.
//
// Every case but the pipelined valid one must be answered 400 (or not at
// all) with exactly one answer, and the connection must then close; the
// test of each server then checks that its state shows no trace of the
// smuggled request. framing.h says which rule each case breaks.
//
// Header-only, for tests; connects to 127.0.0.1 only.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <arpa/inet.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace core::httpd::testing {

// What a server's test supplies.
struct SmugglingTarget {
  std::string path;       // where the outer requests go, e.g. "/v1/agents"
  std::string smuggled;   // a whole request that must never run
  std::string harmless;   // a whole request that is answered and changes nothing
};

struct SmugglingCase {
  std::string name;
  std::string bytes;
  bool valid = false;  // framing is fine: every request is answered, none with 400
};

inline std::string Hex(size_t n) {
  char out[32];
  std::snprintf(out, sizeof out, "%zx", n);
  return out;
}

inline std::vector<SmugglingCase> SmugglingCases(const SmugglingTarget& target) {
  using namespace std::string_literals;  // "..."s keeps the NULs inside
  const std::string post = "POST " + target.path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  const std::string get = "GET " + target.path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  const std::string& s = target.smuggled;
  // A chunked body that ends before `s`: a parser that takes it as chunked
  // reads `s` as the next request.
  const std::string ends_before = "0\r\n\r\n" + s;
  std::vector<SmugglingCase> cases;
  auto add = [&](std::string name, std::string bytes) { cases.push_back({std::move(name), std::move(bytes)}); };

  // Content-Length and Transfer-Encoding disagree (CL.TE, TE.CL).
  add("CL.TE", post + "Content-Length: " + std::to_string(ends_before.size()) +
                   "\r\nTransfer-Encoding: chunked\r\n\r\n" + ends_before);
  {
    std::string size_line = Hex(s.size()) + "\r\n";
    add("TE.CL", post + "Transfer-Encoding: chunked\r\nContent-Length: " + std::to_string(size_line.size()) +
                     "\r\n\r\n" + size_line + s + "\r\n0\r\n\r\n");
  }
  add("TE identity + CL", post + "Transfer-Encoding: identity\r\nContent-Length: 0\r\n\r\n" + s);
  add("CL + TE identity", post + "Content-Length: 0\r\nTransfer-Encoding: identity\r\n\r\n" + s);

  // TE.TE: spellings of Transfer-Encoding one parser honours and another
  // ignores. Each comes alone (a parser ignoring it sees no body and reads
  // `s` next) and with a Content-Length (a parser honouring it as chunked
  // reads `s` next).
  const std::vector<std::pair<std::string, std::string>> codings = {
      {"xchunked", "Transfer-Encoding: xchunked\r\n"},
      {"chunked, identity", "Transfer-Encoding: chunked, identity\r\n"},
      {"identity", "Transfer-Encoding: identity\r\n"},
      {"gzip, chunked", "Transfer-Encoding: gzip, chunked\r\n"},
      {"chunked;q=1", "Transfer-Encoding: chunked;q=1\r\n"},
      {"empty", "Transfer-Encoding:\r\n"},
      {"space before colon", "Transfer-Encoding : chunked\r\n"},
      {"tab before colon", "Transfer-Encoding\t: chunked\r\n"},
      {"tab before value", "Transfer-Encoding:\tchunked\r\n"},
      {"two spaces before value", "Transfer-Encoding:  chunked\r\n"},
      {"trailing tab", "Transfer-Encoding: chunked\t\r\n"},
      {"trailing space", "Transfer-Encoding: chunked \r\n"},
      {"duplicate chunked", "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n"},
      {"identity then chunked", "Transfer-Encoding: identity\r\nTransfer-Encoding: chunked\r\n"},
      {"chunked then identity", "Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n"},
      {"folded onto the next line", "Transfer-Encoding:\r\n chunked\r\n"},
      {"NUL after chunked", "Transfer-Encoding: chunked\0\r\n"s},
      {"vertical tab", "Transfer-Encoding:\x0b" "chunked\r\n"},
  };
  for (const auto& [name, line] : codings) {
    add("TE.TE " + name + " alone", post + line + "\r\n" + s);
    add("TE.TE " + name + " + CL", post + line + "Content-Length: " + std::to_string(ends_before.size()) +
                                       "\r\n\r\n" + ends_before);
  }
  add("TE chunked in HTTP/1.0", "POST " + target.path +
                                    " HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n"
                                    "Transfer-Encoding: chunked\r\n\r\n" + ends_before);

  // Content-Length spelled so that parsers may differ on it. Each means 0
  // or nothing to a lenient parser, which then reads `s` next.
  const std::vector<std::pair<std::string, std::string>> lengths = {
      {"duplicate, same value", "Content-Length: 0\r\nContent-Length: 0\r\n"},
      {"duplicate, different values",
       "Content-Length: 0\r\nContent-Length: " + std::to_string(s.size()) + "\r\n"},
      {"list of equal values", "Content-Length: 0, 0\r\n"},
      {"list without space", "Content-Length: 0,0\r\n"},
      {"plus sign", "Content-Length: +0\r\n"},
      {"minus sign", "Content-Length: -1\r\n"},
      {"two spaces before", "Content-Length:  0\r\n"},
      {"tab before", "Content-Length:\t0\r\n"},
      {"trailing space", "Content-Length: 0 \r\n"},
      {"space inside", "Content-Length: 0 0\r\n"},
      {"hex", "Content-Length: 0x0\r\n"},
      {"empty", "Content-Length:\r\n"},
      {"space before colon", "Content-Length : 0\r\n"},
      {"20 digits", "Content-Length: 00000000000000000000\r\n"},
  };
  for (const auto& [name, line] : lengths) add("CL " + name, post + line + "\r\n" + s);

  // Line structure: obs-fold, bare line endings, control bytes.
  add("obs-fold in another field", get + "X-Note: one\r\n two\r\n\r\n" + s);
  add("obs-fold with a tab", get + "X-Note: one\r\n\ttwo\r\n\r\n" + s);
  add("bare LF everywhere", "GET " + target.path + " HTTP/1.1\nHost: 127.0.0.1\n\n" + s);
  add("bare LF ending one field", get + "X-Note: one\nX-Other: two\r\n\r\n" + s);
  add("bare LF before Transfer-Encoding", get + "X-Note: one\nTransfer-Encoding: chunked\r\n\r\n" + ends_before);
  add("bare CR inside a field", get + "X-Note: one\rX-Other: two\r\n\r\n" + s);
  add("NUL in a field name", get + "X-No\0te: one\r\n"s + "\r\n" + s);
  add("NUL in a field value", get + "X-Note: o\0ne\r\n"s + "\r\n" + s);
  add("DEL in a field value", get + "X-Note: o\x7fne\r\n\r\n" + s);
  add("blank before the request line", " " + get + "\r\n" + s);
  add("empty line before the request line", "\r\n" + get + "\r\n" + s);

  // Valid framing still works, pipelined: both answered, the second closes.
  {
    std::string second = target.harmless;
    second.insert(second.find("\r\n") + 2, "Connection: close\r\n");
    cases.push_back({"pipelined valid requests", target.harmless + second, true});
  }
  return cases;
}

// What came back for one case.
struct SmugglingReply {
  std::string bytes;    // everything the server sent
  bool closed = false;  // the server closed (EOF or reset) rather than going quiet
};

// Sends `bytes` on a fresh loopback connection, then reads until the server
// closes; a server still silent after `quiet_seconds` counts as not closing.
inline SmugglingReply SendSmuggling(int port, std::string_view bytes, int quiet_seconds = 5) {
  SmugglingReply reply;
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return reply;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval tv{quiet_seconds, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return reply;
  }
  while (!bytes.empty()) {
    ssize_t n = send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) break;  // the server may have answered and closed already
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  char buf[8192];
  for (;;) {
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n > 0) {
      reply.bytes.append(buf, static_cast<size_t>(n));
      continue;
    }
    // 0: closed; ECONNRESET: closed with unread bytes; EAGAIN: went quiet.
    reply.closed = n == 0 || errno == ECONNRESET;
    break;
  }
  close(fd);
  return reply;
}

// The status codes of the answers in `bytes`, in order: one answer after
// another, each delimited by its Content-Length (the servers' answers here
// all carry one); what follows an answer without one is not read.
inline std::vector<int> Statuses(std::string_view bytes) {
  std::vector<int> out;
  while (bytes.size() >= 12 && bytes.substr(0, 7) == "HTTP/1." && bytes[8] == ' ') {
    out.push_back(std::atoi(std::string(bytes.substr(9, 3)).c_str()));
    size_t end = bytes.find("\r\n\r\n");
    if (end == std::string_view::npos) break;
    std::string_view head = bytes.substr(0, end + 2);
    size_t length = 0;
    bool known = false;
    for (size_t at = 0; (at = head.find("\r\n", at)) != std::string_view::npos;) {
      at += 2;
      std::string_view line = head.substr(at, head.find("\r\n", at) - at);
      if (line.size() > 15 && (line.substr(0, 15) == "Content-Length:" || line.substr(0, 15) == "content-length:")) {
        length = std::strtoul(std::string(line.substr(15)).c_str(), nullptr, 10);
        known = true;
      }
    }
    if (!known) break;
    size_t next = end + 4 + length;
    if (next > bytes.size()) break;
    bytes.remove_prefix(next);
  }
  return out;
}

// Empty when `reply` is what `c` should get; else what went wrong.
inline std::string JudgeSmuggling(const SmugglingCase& c, const SmugglingReply& reply) {
  std::vector<int> statuses = Statuses(reply.bytes);
  std::string seen = std::to_string(statuses.size()) + " answer(s)";
  for (int s : statuses) seen += " " + std::to_string(s);
  if (!reply.closed) return "the connection stayed open (" + seen + ")";
  if (c.valid) {
    if (statuses.size() != 2) return "expected 2 answers, got " + seen;
    for (int s : statuses) {
      if (s == 400) return "a valid request was refused (" + seen + ")";
    }
    return "";
  }
  if (statuses.empty()) return "";  // closed without an answer: nothing was run
  if (statuses.size() != 1 || statuses[0] != 400) return "expected one 400, got " + seen;
  return "";
}

}  // namespace core::httpd::testing
