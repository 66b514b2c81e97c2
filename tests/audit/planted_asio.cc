// A planted outbound call through Boost.Asio for the socket audit's own test
// (tests/volent/audit.sh): Asio is header-only, so resolving and connecting
// put Asio's socket_ops code into this object. At -O0 the object carries
// copies of boost::asio::detail::socket_ops::connect and ::getaddrinfo; when
// optimised they are inlined and only libc's connect and getaddrinfo remain.
// The audit must see it either way. Compiled by that test only; never linked.
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

bool PlantedAsioConnect(const char* host) {
  boost::asio::io_context io;
  boost::asio::ip::tcp::resolver resolver(io);
  boost::asio::ip::tcp::socket socket(io);
  boost::system::error_code error;
  auto endpoints = resolver.resolve(host, "80", error);
  if (error) return false;
  boost::asio::connect(socket, endpoints, error);
  return !error;
}
