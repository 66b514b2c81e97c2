// Name resolution (resolve.h): the system resolver on a thread of its own,
// or c-ares asking one DNS server, driven with poll on the caller's thread.
#include "volent/egress/resolve.h"

#include <ares.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/types.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

#include <boost/asio/ip/address.hpp>

#include "core/errno_text.h"
#include "core/host_port.h"
#include "volent/manifest/address.h"

namespace volent::egress {
namespace {

namespace ip = boost::asio::ip;
using Clock = std::chrono::steady_clock;

constexpr int kTypeA = 1;
constexpr int kTypeAaaa = 28;
constexpr int kClassIn = 1;

void AddUnique(std::vector<ip::address>& list, const ip::address& a) {
  if (std::find(list.begin(), list.end(), a) == list.end()) list.push_back(a);
}

Resolved Fail(std::string error) {
  Resolved out;
  out.error = std::move(error);
  return out;
}

// ---- The DNS server option -------------------------------------------------

struct DnsServer {
  ip::address address;
  int port = 53;
  std::string Shown() const { return core::FormatHostPort(address.to_string(), port); }
};

// Reads a dns_server value that manifest::CheckDnsServer accepts (the one
// check of that option, shared with `volent check`); `problem` says why not.
std::optional<DnsServer> ParseDnsServer(const std::string& text, std::string& problem) {
  if (std::string why = volent::manifest::CheckDnsServer(text); !why.empty()) {
    problem = "dns_server \"" + text + "\" " + why;
    return std::nullopt;
  }
  auto parsed = core::ParseHostPort(text, core::PortRule::kOptional);
  boost::system::error_code ec;
  DnsServer server;
  server.address = ip::make_address(parsed->host, ec);
  if (ec) {  // both parsers use inet_pton: not expected
    problem = "dns_server \"" + text + "\": the address does not parse";
    return std::nullopt;
  }
  if (parsed->has_port) server.port = parsed->port;
  return server;
}

// ---- The system resolver ---------------------------------------------------

Resolved GetAddrInfo(const std::string& host) {
  Resolved out;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_ADDRCONFIG;
  addrinfo* list = nullptr;
  const int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &list);
  if (rc != 0) {
    out.error = ::gai_strerror(rc);
    return out;
  }
  for (addrinfo* p = list; p != nullptr; p = p->ai_next) {
    if (p->ai_family == AF_INET && p->ai_addrlen >= sizeof(sockaddr_in)) {
      const auto* sin = reinterpret_cast<const sockaddr_in*>(p->ai_addr);
      ip::address_v4::bytes_type bytes;
      std::memcpy(bytes.data(), &sin->sin_addr, 4);
      AddUnique(out.addresses, ip::address_v4(bytes));
    } else if (p->ai_family == AF_INET6 && p->ai_addrlen >= sizeof(sockaddr_in6)) {
      const auto* sin6 = reinterpret_cast<const sockaddr_in6*>(p->ai_addr);
      ip::address_v6::bytes_type bytes;
      std::memcpy(bytes.data(), &sin6->sin6_addr, 16);
      AddUnique(out.addresses, ip::address_v6(bytes));  // scope ids are dropped: link-local is refused anyway
    }
  }
  ::freeaddrinfo(list);
  if (out.addresses.empty()) out.error = "no IPv4 or IPv6 address";
  return out;
}

struct Lookup {
  std::mutex mutex;
  std::condition_variable done_cv;
  bool done = false;
  Resolved result;
};

Resolved SystemResolve(const std::string& host, Clock::time_point deadline) {
  auto lookup = std::make_shared<Lookup>();
  try {
    std::thread([lookup, host] {
      Resolved result = GetAddrInfo(host);
      std::lock_guard<std::mutex> lock(lookup->mutex);
      lookup->result = std::move(result);
      lookup->done = true;
      lookup->done_cv.notify_all();
    }).detach();
  } catch (const std::system_error& e) {
    return Fail(std::string("could not start a resolver thread: ") + e.what());
  }
  std::unique_lock<std::mutex> lock(lookup->mutex);
  if (!lookup->done_cv.wait_until(lock, deadline, [&] { return lookup->done; })) {
    return Fail("no answer within the time limit");
  }
  return std::move(lookup->result);
}

// ---- One DNS server, with c-ares -------------------------------------------

int InitAres() {
  static const int status = ares_library_init(ARES_LIB_INIT_ALL);  // once, thread-safe
  return status;
}

struct Query {
  int type = kTypeA;
  bool done = false;
  int status = ARES_SUCCESS;
  std::vector<ip::address> addresses;
};

void OnAnswer(void* arg, int status, int /*timeouts*/, unsigned char* abuf, int alen) {
  auto* query = static_cast<Query*>(arg);
  query->done = true;
  query->status = status;
  if (status != ARES_SUCCESS) return;
  hostent* host = nullptr;
  // Both parsers follow a CNAME chain inside the answer, in its order, and
  // take only the records of the name the chain ends at.
  const int rc = query->type == kTypeA ? ares_parse_a_reply(abuf, alen, &host, nullptr, nullptr)
                                       : ares_parse_aaaa_reply(abuf, alen, &host, nullptr, nullptr);
  if (rc != ARES_SUCCESS) {
    query->status = rc;
    if (host != nullptr) ares_free_hostent(host);
    return;
  }
  const int family = query->type == kTypeA ? AF_INET : AF_INET6;
  const int length = query->type == kTypeA ? 4 : 16;
  if (host != nullptr && host->h_addrtype == family && host->h_length == length) {
    for (char** p = host->h_addr_list; p != nullptr && *p != nullptr; ++p) {
      if (length == 4) {
        ip::address_v4::bytes_type bytes;
        std::memcpy(bytes.data(), *p, 4);
        AddUnique(query->addresses, ip::address_v4(bytes));
      } else {
        ip::address_v6::bytes_type bytes;
        std::memcpy(bytes.data(), *p, 16);
        AddUnique(query->addresses, ip::address_v6(bytes));
      }
    }
  }
  if (host != nullptr) ares_free_hostent(host);
  if (query->addresses.empty()) query->status = ARES_ENODATA;
}

// What a failed query means, for a person.
std::string Describe(int status, const std::string& server) {
  switch (status) {
    case ARES_ENOTFOUND: return "no such name (NXDOMAIN from DNS server " + server + ")";
    case ARES_ENODATA: return "DNS server " + server + " has no A or AAAA record for it";
    case ARES_ESERVFAIL: return "DNS server " + server + " answered SERVFAIL (it could not resolve the name)";
    case ARES_EREFUSED: return "DNS server " + server + " refused the query (REFUSED)";
    case ARES_ENOTIMP: return "DNS server " + server + " does not implement the query (NOTIMP)";
    case ARES_EFORMERR: return "DNS server " + server + " found the query malformed (FORMERR)";
    case ARES_ETIMEOUT: return "DNS server " + server + " did not answer (every try timed out)";
    case ARES_ECONNREFUSED: return "could not reach DNS server " + server + " (connection refused)";
    case ARES_EBADRESP: return "DNS server " + server + " sent a malformed answer";
    case ARES_EBADNAME: return "the name cannot be put in a DNS query";
    case ARES_ENOMEM: return "out of memory while resolving";
    default: return "DNS query to " + server + " failed: " + ares_strerror(status);
  }
}

// The least surprising error of two failed queries: a real failure (the
// server failed, timed out, sent garbage) says more than "no such record".
std::string Combine(const Query& a, const Query& aaaa, const std::string& server) {
  auto benign = [](int s) { return s == ARES_ENOTFOUND || s == ARES_ENODATA; };
  if (!benign(a.status)) return Describe(a.status, server);
  if (!benign(aaaa.status)) return Describe(aaaa.status, server);
  if (a.status == ARES_ENOTFOUND || aaaa.status == ARES_ENOTFOUND) return Describe(ARES_ENOTFOUND, server);
  return Describe(ARES_ENODATA, server);
}

class Channel {
 public:
  ~Channel() {
    if (channel_ != nullptr) ares_destroy(channel_);  // pending queries end with ARES_EDESTRUCTION
  }
  ares_channel get() const { return channel_; }
  ares_channel* out() { return &channel_; }

 private:
  ares_channel channel_ = nullptr;
};

Resolved ServerResolve(const std::string& host, Clock::time_point deadline, const DnsServer& server) {
  const std::string shown = server.Shown();
  if (const int rc = InitAres(); rc != ARES_SUCCESS) {
    return Fail(std::string("could not start the DNS client: ") + ares_strerror(rc));
  }
  ares_options options{};
  int mask = 0;
  // No search list or HOSTALIASES, and a SERVFAIL/REFUSED answer is the
  // answer (not retried: with one server there is nobody else to ask).
  options.flags = ARES_FLAG_NOSEARCH | ARES_FLAG_NOALIASES | ARES_FLAG_NOCHECKRESP;
  mask |= ARES_OPT_FLAGS;
  options.timeout = 1000;  // per try, doubled each round; the deadline bounds the whole
  mask |= ARES_OPT_TIMEOUTMS;
  options.tries = 3;
  mask |= ARES_OPT_TRIES;
  options.domains = nullptr;
  options.ndomains = 0;
  mask |= ARES_OPT_DOMAINS;
  char lookups[] = "b";  // DNS only, never the hosts file
  options.lookups = lookups;
  mask |= ARES_OPT_LOOKUPS;
  char no_resolv_conf[] = "/dev/null";  // the machine's resolver settings do not apply
  options.resolvconf_path = no_resolv_conf;
  mask |= ARES_OPT_RESOLVCONF;
  // Declared before the channel, so they outlive it: destroying a channel
  // with queries pending (a timed-out lookup) calls OnAnswer for each with
  // ARES_EDESTRUCTION, which writes to its Query.
  Query a;
  a.type = kTypeA;
  Query aaaa;
  aaaa.type = kTypeAaaa;
  Channel channel;
  if (const int rc = ares_init_options(channel.out(), &options, mask); rc != ARES_SUCCESS) {
    return Fail(std::string("could not start the DNS client: ") + ares_strerror(rc));
  }
  ares_addr_port_node node{};
  node.next = nullptr;
  if (server.address.is_v4()) {
    node.family = AF_INET;
    const auto bytes = server.address.to_v4().to_bytes();
    std::memcpy(&node.addr.addr4, bytes.data(), 4);
  } else {
    node.family = AF_INET6;
    const auto bytes = server.address.to_v6().to_bytes();
    std::memcpy(&node.addr.addr6, bytes.data(), 16);
  }
  node.udp_port = server.port;
  node.tcp_port = server.port;
  if (const int rc = ares_set_servers_ports(channel.get(), &node); rc != ARES_SUCCESS) {
    return Fail("could not use DNS server " + shown + ": " + ares_strerror(rc));
  }

  ares_query(channel.get(), host.c_str(), kClassIn, kTypeA, OnAnswer, &a);
  ares_query(channel.get(), host.c_str(), kClassIn, kTypeAaaa, OnAnswer, &aaaa);

  bool timed_out = false;
  while (!(a.done && aaaa.done)) {
    const auto now = Clock::now();
    if (now >= deadline) {
      timed_out = true;
      break;
    }
    ares_socket_t sockets[ARES_GETSOCK_MAXNUM];
    const int bits = ares_getsock(channel.get(), sockets, ARES_GETSOCK_MAXNUM);
    pollfd fds[ARES_GETSOCK_MAXNUM];
    nfds_t count = 0;
    for (int i = 0; i < ARES_GETSOCK_MAXNUM; ++i) {
      const bool readable = ARES_GETSOCK_READABLE(bits, i);
      const bool writable = ARES_GETSOCK_WRITABLE(bits, i);
      if (!readable && !writable) continue;
      fds[count].fd = sockets[i];
      fds[count].events = static_cast<short>((readable ? POLLIN : 0) | (writable ? POLLOUT : 0));
      fds[count].revents = 0;
      ++count;
    }
    const auto left_us = std::chrono::duration_cast<std::chrono::microseconds>(deadline - now).count();
    timeval limit{static_cast<time_t>(left_us / 1000000), static_cast<suseconds_t>(left_us % 1000000)};
    timeval wait{};
    const timeval* next = ares_timeout(channel.get(), &limit, &wait);
    // Rounded up: waking a little late costs nothing, waking early spins.
    const long long wait_ms = static_cast<long long>(next->tv_sec) * 1000 + (next->tv_usec + 999) / 1000;
    const int ready = ::poll(fds, count, static_cast<int>(std::min<long long>(wait_ms, 60000)));
    if (ready < 0) {
      if (errno == EINTR) continue;
      return Fail(std::string("waiting for DNS server ") + shown + " failed: " + core::ErrnoText());
    }
    if (ready == 0) {
      ares_process_fd(channel.get(), ARES_SOCKET_BAD, ARES_SOCKET_BAD);  // timeouts and retries
      continue;
    }
    for (nfds_t i = 0; i < count; ++i) {
      const short ev = fds[i].revents;
      if (ev == 0) continue;
      const bool in = (ev & (POLLIN | POLLERR | POLLHUP)) != 0;
      const bool out = (ev & (POLLOUT | POLLERR)) != 0;
      ares_process_fd(channel.get(), in ? fds[i].fd : ARES_SOCKET_BAD, out ? fds[i].fd : ARES_SOCKET_BAD);
    }
  }

  Resolved out;
  for (const auto& address : a.addresses) AddUnique(out.addresses, address);
  for (const auto& address : aaaa.addresses) AddUnique(out.addresses, address);
  if (!out.addresses.empty()) return out;
  if (timed_out) return Fail("no answer from DNS server " + shown + " within the time limit");
  return Fail(Combine(a, aaaa, shown));
}

}  // namespace

std::string CheckDnsServer(const std::string& dns_server) {
  if (dns_server.empty()) return "";
  std::string problem;
  ParseDnsServer(dns_server, problem);
  return problem;
}

Resolved ResolveHost(const std::string& host, std::chrono::steady_clock::time_point deadline,
                     const std::string& dns_server) {
  if (host.empty()) return Fail("empty host name");
  boost::system::error_code ec;
  const ip::address literal = ip::make_address(host, ec);
  if (!ec && host.find('%') == std::string::npos) {
    Resolved out;
    out.addresses.push_back(literal);
    return out;
  }
  if (dns_server.empty()) return SystemResolve(host, deadline);
  std::string problem;
  const std::optional<DnsServer> server = ParseDnsServer(dns_server, problem);
  if (!server) return Fail(problem);
  return ServerResolve(host, deadline, *server);
}

void ResolveHostAsync(const std::string& host, std::chrono::steady_clock::time_point deadline,
                      const std::string& dns_server, std::function<void(Resolved)> done) {
  // Shared, so that `done` survives a thread that could not be started.
  auto callback = std::make_shared<std::function<void(Resolved)>>(std::move(done));
  try {
    std::thread([callback, host, deadline, dns_server] {
      (*callback)(ResolveHost(host, deadline, dns_server));
    }).detach();
  } catch (const std::system_error& e) {
    (*callback)(Fail(std::string("could not start a resolver thread: ") + e.what()));
  }
}

}  // namespace volent::egress
