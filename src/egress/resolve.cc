// Resolution on a thread of its own, waited for until the deadline (resolve.h).
#include "egress/resolve.h"

#include <netdb.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

#include <boost/asio/ip/tcp.hpp>

namespace volent::egress {
namespace {

struct Lookup {
  std::mutex mutex;
  std::condition_variable done_cv;
  bool done = false;
  Resolved result;
};

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
    boost::asio::ip::address a;
    if (p->ai_family == AF_INET && p->ai_addrlen >= sizeof(sockaddr_in)) {
      const auto* sin = reinterpret_cast<const sockaddr_in*>(p->ai_addr);
      boost::asio::ip::address_v4::bytes_type bytes;
      std::memcpy(bytes.data(), &sin->sin_addr, 4);
      a = boost::asio::ip::address_v4(bytes);
    } else if (p->ai_family == AF_INET6 && p->ai_addrlen >= sizeof(sockaddr_in6)) {
      const auto* sin6 = reinterpret_cast<const sockaddr_in6*>(p->ai_addr);
      boost::asio::ip::address_v6::bytes_type bytes;
      std::memcpy(bytes.data(), &sin6->sin6_addr, 16);
      a = boost::asio::ip::address_v6(bytes);  // scope ids are dropped: link-local is refused anyway
    } else {
      continue;
    }
    bool seen = false;
    for (const auto& b : out.addresses) seen = seen || b == a;
    if (!seen) out.addresses.push_back(a);
  }
  ::freeaddrinfo(list);
  if (out.addresses.empty()) out.error = "no IPv4 or IPv6 address";
  return out;
}

}  // namespace

std::string CheckDnsServer(const std::string& dns_server) {
  return dns_server.empty() ? "" : "choosing a DNS server is not supported yet";
}

void ResolveHostAsync(const std::string& host, std::chrono::steady_clock::time_point deadline,
                      const std::string& dns_server, std::function<void(Resolved)> done) {
  done(ResolveHost(host, deadline, dns_server));
}

Resolved ResolveHost(const std::string& host, std::chrono::steady_clock::time_point deadline,
                     const std::string& dns_server) {
  if (std::string problem = CheckDnsServer(dns_server); !problem.empty()) {
    Resolved out;
    out.error = problem;
    return out;
  }
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
    Resolved out;
    out.error = std::string("could not start a resolver thread: ") + e.what();
    return out;
  }
  std::unique_lock<std::mutex> lock(lookup->mutex);
  if (!lookup->done_cv.wait_until(lock, deadline, [&] { return lookup->done; })) {
    Resolved out;
    out.error = "no answer within the time limit";
    return out;
  }
  return std::move(lookup->result);
}

}  // namespace volent::egress
