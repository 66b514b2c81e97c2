// A small authoritative DNS server for tests (resolve_test.cc,
// ssrf_test.cc): UDP and TCP on 127.0.0.1 (or [::1]), a port of its own,
// its own thread. Test code only: include it from *_test.cc files, never from the
// node.
//
// Answers come from a table: a name maps to a sequence of answer sets (A,
// AAAA and CNAME records). The Nth query for a name and type gets the Nth
// set (the last one once the sequence is used up), so a name can change its
// answer between two lookups (DNS rebinding). A CNAME in a set is answered
// with the chain it starts, followed here, in order, up to 8 names. Unknown
// names get NXDOMAIN; a known name without records of the type asked,
// NOERROR with no answer. Every record has TTL 0. A name can also be made to
// answer with an error code (SERVFAIL, REFUSED) or not at all, and every UDP
// answer can be sent truncated (then the client asks again over TCP).
//
// Queries are read defensively: a datagram or TCP message that is too short,
// a response, a question with compression or over-long labels, or more than
// one question is answered with FORMERR or dropped, never trusted.
//
// Thread-safe: the table and the counters may be changed and read while the
// server runs.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace volent::egress::testing {

struct DnsRecord {
  enum class Type { kA, kAaaa, kCname };
  Type type = Type::kA;
  std::string value;  // an address ("10.0.0.5", "::1") or, for a CNAME, the target name

  static DnsRecord A(std::string address) { return {Type::kA, std::move(address)}; }
  static DnsRecord Aaaa(std::string address) { return {Type::kAaaa, std::move(address)}; }
  static DnsRecord Cname(std::string target) { return {Type::kCname, std::move(target)}; }
};
using DnsAnswer = std::vector<DnsRecord>;

class TestDnsServer {
 public:
  static constexpr uint16_t kTypeA = 1;
  static constexpr uint16_t kTypeCname = 5;
  static constexpr uint16_t kTypeAaaa = 28;
  static constexpr int kNoError = 0;
  static constexpr int kFormErr = 1;
  static constexpr int kServFail = 2;
  static constexpr int kNxDomain = 3;
  static constexpr int kNotImp = 4;
  static constexpr int kRefused = 5;

  enum class Family { kIpv4, kIpv6 };

  // Binds UDP and TCP on 127.0.0.1, or [::1] (one port for both), and starts
  // serving. ok() is false when no port could be had.
  explicit TestDnsServer(Family family = Family::kIpv4) : ipv6_(family == Family::kIpv6) {
    for (int attempt = 0; attempt < 20 && port_ == 0; ++attempt) Bind();
    if (port_ == 0) return;
    if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) {
      Close();
      port_ = 0;
      return;
    }
    thread_ = std::thread([this] { Serve(); });
  }

  ~TestDnsServer() {
    if (thread_.joinable()) {
      const char byte = 0;
      [[maybe_unused]] ssize_t n = ::write(wake_[1], &byte, 1);
      thread_.join();
    }
    Close();
    for (int fd : wake_) {
      if (fd >= 0) ::close(fd);
    }
  }
  TestDnsServer(const TestDnsServer&) = delete;
  TestDnsServer& operator=(const TestDnsServer&) = delete;

  bool ok() const { return port_ != 0; }
  int port() const { return port_; }
  // The value of GateOptions::dns_server / ResolveHost's dns_server.
  std::string address() const { return (ipv6_ ? "[::1]:" : "127.0.0.1:") + std::to_string(port_); }

  // `name` always answers `answer`.
  void Set(const std::string& name, DnsAnswer answer) { SetSequence(name, {std::move(answer)}); }
  // The Nth query of a type for `name` gets sequence[N-1], then the last.
  void SetSequence(const std::string& name, std::vector<DnsAnswer> sequence) {
    std::lock_guard<std::mutex> lock(mutex_);
    Entry& entry = table_[Lower(name)];
    entry.sequence = std::move(sequence);
    entry.rcode = kNoError;
    entry.silent = false;
  }
  // `name` answers with this response code (kServFail, kRefused, ...) and no records.
  void SetRcode(const std::string& name, int rcode) {
    std::lock_guard<std::mutex> lock(mutex_);
    Entry& entry = table_[Lower(name)];
    entry.rcode = rcode & 0xF;
    entry.silent = false;
  }
  // Queries for `name` are read and never answered.
  void SetSilent(const std::string& name) {
    std::lock_guard<std::mutex> lock(mutex_);
    table_[Lower(name)].silent = true;
  }
  // Every UDP answer is sent with TC set and no records.
  void SetTruncateUdp(bool truncate) { truncate_udp_ = truncate; }

  // Questions received for `name` (of `type`, or of any type).
  int Queries(const std::string& name) const {
    std::lock_guard<std::mutex> lock(mutex_);
    int total = 0;
    for (const auto& [key, count] : counts_) {
      if (key.first == Lower(name)) total += count;
    }
    return total;
  }
  int Queries(const std::string& name, uint16_t type) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = counts_.find({Lower(name), type});
    return it == counts_.end() ? 0 : it->second;
  }
  int TcpQueries() const { return tcp_queries_; }
  int Malformed() const { return malformed_; }  // messages refused as malformed

 private:
  struct Entry {
    std::vector<DnsAnswer> sequence;
    int rcode = kNoError;
    bool silent = false;
  };
  struct Connection {
    int fd = -1;
    std::string buffer;
  };

  static std::string Lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }

  void Bind() {
    const int family = ipv6_ ? AF_INET6 : AF_INET;
    sockaddr_storage storage{};
    socklen_t len = 0;
    if (ipv6_) {
      auto* a6 = reinterpret_cast<sockaddr_in6*>(&storage);
      a6->sin6_family = AF_INET6;
      a6->sin6_addr = in6addr_loopback;
      len = sizeof(sockaddr_in6);
    } else {
      auto* a4 = reinterpret_cast<sockaddr_in*>(&storage);
      a4->sin_family = AF_INET;
      a4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      len = sizeof(sockaddr_in);
    }
    auto* addr = reinterpret_cast<sockaddr*>(&storage);
    int udp = ::socket(family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (udp < 0) return;
    socklen_t got = len;
    if (::bind(udp, addr, len) != 0 || ::getsockname(udp, addr, &got) != 0) {
      ::close(udp);
      return;
    }
    int tcp = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (tcp < 0) {
      ::close(udp);
      return;
    }
    int one = 1;
    ::setsockopt(tcp, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (::bind(tcp, addr, len) != 0 || ::listen(tcp, 16) != 0) {
      ::close(udp);
      ::close(tcp);
      return;  // the port is taken for TCP: try another
    }
    udp_ = udp;
    tcp_ = tcp;
    port_ = ntohs(ipv6_ ? reinterpret_cast<sockaddr_in6*>(&storage)->sin6_port
                        : reinterpret_cast<sockaddr_in*>(&storage)->sin_port);
  }

  void Close() {
    if (udp_ >= 0) ::close(udp_);
    if (tcp_ >= 0) ::close(tcp_);
    for (auto& c : connections_) ::close(c.fd);
    connections_.clear();
    udp_ = tcp_ = -1;
  }

  void Serve() {
    for (;;) {
      std::vector<pollfd> fds = {{wake_[0], POLLIN, 0}, {udp_, POLLIN, 0}, {tcp_, POLLIN, 0}};
      for (const auto& c : connections_) fds.push_back({c.fd, POLLIN, 0});
      if (::poll(fds.data(), fds.size(), -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (fds[0].revents != 0) return;
      if (fds[1].revents & POLLIN) ReadUdp();
      if ((fds[2].revents & POLLIN) && connections_.size() < 64) {
        int fd = ::accept4(tcp_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd >= 0) connections_.push_back({fd, {}});
      }
      // Connections in the order polled; closed ones are removed after.
      std::vector<int> closed;
      for (size_t i = 3; i < fds.size(); ++i) {
        if (fds[i].revents == 0) continue;
        if (!ReadTcp(connections_[i - 3])) closed.push_back(connections_[i - 3].fd);
      }
      for (int fd : closed) {
        ::close(fd);
        connections_.erase(std::remove_if(connections_.begin(), connections_.end(),
                                          [fd](const Connection& c) { return c.fd == fd; }),
                           connections_.end());
      }
    }
  }

  void ReadUdp() {
    for (;;) {
      unsigned char buf[4096];
      sockaddr_storage from{};
      socklen_t from_len = sizeof(from);
      const ssize_t n = ::recvfrom(udp_, buf, sizeof(buf), 0, reinterpret_cast<sockaddr*>(&from), &from_len);
      if (n < 0) return;  // EAGAIN: drained
      std::optional<std::string> reply = Answer(std::string(reinterpret_cast<char*>(buf), static_cast<size_t>(n)),
                                                /*udp=*/true);
      if (reply) {
        ::sendto(udp_, reply->data(), reply->size(), MSG_NOSIGNAL, reinterpret_cast<sockaddr*>(&from), from_len);
      }
    }
  }

  // False when the connection is over (closed, broken, or sent garbage).
  bool ReadTcp(Connection& c) {
    char buf[4096];
    const ssize_t n = ::recv(c.fd, buf, sizeof(buf), 0);
    if (n == 0) return false;
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    c.buffer.append(buf, static_cast<size_t>(n));
    while (c.buffer.size() >= 2) {
      const size_t len = (static_cast<unsigned char>(c.buffer[0]) << 8) | static_cast<unsigned char>(c.buffer[1]);
      if (len == 0) return false;
      if (c.buffer.size() < 2 + len) break;
      const std::string message = c.buffer.substr(2, len);
      c.buffer.erase(0, 2 + len);
      ++tcp_queries_;
      std::optional<std::string> reply = Answer(message, /*udp=*/false);
      if (!reply) continue;
      std::string framed;
      framed.push_back(static_cast<char>((reply->size() >> 8) & 0xFF));
      framed.push_back(static_cast<char>(reply->size() & 0xFF));
      framed += *reply;
      // Small answers into an empty socket buffer: one send is enough; a
      // client that does not read is dropped.
      if (::send(c.fd, framed.data(), framed.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(framed.size())) {
        return false;
      }
    }
    return c.buffer.size() <= 65537;
  }

  static void Put16(std::string& out, unsigned v) {
    out.push_back(static_cast<char>((v >> 8) & 0xFF));
    out.push_back(static_cast<char>(v & 0xFF));
  }
  static bool PutName(std::string& out, const std::string& name) {
    size_t start = 0;
    size_t total = 1;
    while (start < name.size()) {
      size_t dot = name.find('.', start);
      if (dot == std::string::npos) dot = name.size();
      const size_t len = dot - start;
      if (len == 0 || len > 63) return false;
      total += len + 1;
      if (total > 255) return false;
      out.push_back(static_cast<char>(len));
      out.append(name, start, len);
      start = dot + 1;
    }
    out.push_back('\0');
    return true;
  }

  // A header-only answer to a query whose id and flags could be read.
  static std::string Bare(const std::string& query, int rcode) {
    std::string out = query.substr(0, 2);
    const unsigned rd = static_cast<unsigned char>(query[2]) & 0x01;
    out.push_back(static_cast<char>(0x80 | 0x04 | rd));  // QR, AA, RD as asked
    out.push_back(static_cast<char>(0x80 | (rcode & 0xF)));  // RA
    out.append(8, '\0');
    return out;
  }

  // The reply to one message, or nothing (a response, a silent name, or too
  // short to answer).
  std::optional<std::string> Answer(const std::string& query, bool udp) {
    if (query.size() < 12) {
      ++malformed_;
      return std::nullopt;
    }
    const auto byte = [&](size_t i) { return static_cast<unsigned char>(query[i]); };
    if (byte(2) & 0x80) return std::nullopt;  // a response, not a query
    const int opcode = (byte(2) >> 3) & 0x0F;
    if (opcode != 0) return Bare(query, kNotImp);
    const unsigned qdcount = (byte(4) << 8) | byte(5);
    if (qdcount != 1) {
      ++malformed_;
      return Bare(query, kFormErr);
    }
    // The question: labels without compression, then type and class.
    size_t pos = 12;
    std::string name;
    for (;;) {
      if (pos >= query.size()) {
        ++malformed_;
        return Bare(query, kFormErr);
      }
      const unsigned len = byte(pos);
      if (len == 0) {
        ++pos;
        break;
      }
      if (len > 63 || pos + 1 + len > query.size() || name.size() + len + 1 > 254) {
        ++malformed_;
        return Bare(query, kFormErr);
      }
      if (!name.empty()) name.push_back('.');
      name.append(query, pos + 1, len);
      pos += 1 + len;
    }
    if (pos + 4 > query.size()) {
      ++malformed_;
      return Bare(query, kFormErr);
    }
    const uint16_t qtype = static_cast<uint16_t>((byte(pos) << 8) | byte(pos + 1));
    const std::string question = query.substr(12, pos + 4 - 12);
    name = Lower(name);

    std::vector<std::string> answers;  // encoded resource records
    int rcode = kNoError;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++counts_[{name, qtype}];
      auto it = table_.find(name);
      if (it == table_.end()) {
        rcode = kNxDomain;
      } else if (it->second.silent) {
        return std::nullopt;
      } else if (it->second.rcode != kNoError) {
        rcode = it->second.rcode;
      } else {
        // This query's set for the name asked; a CNAME's target answers
        // with its current set, without counting a query for it.
        std::string owner = name;
        size_t index = static_cast<size_t>(counts_[{name, qtype}] - 1);
        for (int hop = 0; hop < 8; ++hop) {
          auto entry = table_.find(owner);
          if (entry == table_.end() || entry->second.sequence.empty()) break;
          const auto& sequence = entry->second.sequence;
          if (hop > 0) {
            auto seen = counts_.find({owner, qtype});
            index = seen == counts_.end() || seen->second == 0 ? 0 : static_cast<size_t>(seen->second - 1);
          }
          const DnsAnswer& set = sequence[std::min(index, sequence.size() - 1)];
          std::optional<std::string> next;
          for (const DnsRecord& r : set) {
            std::string rr;
            if (!PutName(rr, owner)) continue;
            std::string rdata;
            uint16_t type = 0;
            if (r.type == DnsRecord::Type::kCname) {
              if (!PutName(rdata, Lower(r.value))) continue;
              type = kTypeCname;
              if (!next) next = Lower(r.value);
            } else if (r.type == DnsRecord::Type::kA && qtype == kTypeA) {
              in_addr a{};
              if (::inet_pton(AF_INET, r.value.c_str(), &a) != 1) continue;
              rdata.assign(reinterpret_cast<const char*>(&a), 4);
              type = kTypeA;
            } else if (r.type == DnsRecord::Type::kAaaa && qtype == kTypeAaaa) {
              in6_addr a{};
              if (::inet_pton(AF_INET6, r.value.c_str(), &a) != 1) continue;
              rdata.assign(reinterpret_cast<const char*>(&a), 16);
              type = kTypeAaaa;
            } else {
              continue;
            }
            Put16(rr, type);
            Put16(rr, 1);                 // class IN
            rr.append(4, '\0');           // TTL 0
            Put16(rr, static_cast<unsigned>(rdata.size()));
            rr += rdata;
            answers.push_back(std::move(rr));
          }
          if (!next) break;
          owner = *next;
        }
      }
    }

    std::string out = query.substr(0, 2);
    const unsigned rd = byte(2) & 0x01;
    size_t size = 12 + question.size();
    for (const auto& rr : answers) size += rr.size();
    const bool truncate = udp && (truncate_udp_ || size > 512);
    out.push_back(static_cast<char>(0x80 | 0x04 | (truncate ? 0x02 : 0) | rd));  // QR, AA, TC, RD
    out.push_back(static_cast<char>(0x80 | rcode));                               // RA, RCODE
    Put16(out, 1);
    Put16(out, truncate ? 0 : static_cast<unsigned>(answers.size()));
    Put16(out, 0);
    Put16(out, 0);
    out += question;
    if (!truncate) {
      for (const auto& rr : answers) out += rr;
    }
    return out;
  }

  mutable std::mutex mutex_;
  std::map<std::string, Entry> table_;
  std::map<std::pair<std::string, uint16_t>, int> counts_;
  std::atomic<bool> truncate_udp_{false};
  std::atomic<int> tcp_queries_{0};
  std::atomic<int> malformed_{0};
  const bool ipv6_;
  int udp_ = -1;
  int tcp_ = -1;
  int port_ = 0;
  int wake_[2] = {-1, -1};
  std::vector<Connection> connections_;  // the server thread's only
  std::thread thread_;
};

}  // namespace volent::egress::testing
