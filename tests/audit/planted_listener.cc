// A planted listening socket for the socket audit's own test
// (tests/volent/audit.sh): socket, bind and listen, no connect and no name
// resolution, as an inbound server does. Allowed only in the inbound servers
// scripts/audit-sockets.sh lists. Compiled by that test only; never linked.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

int PlantedListener() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(fd, 8) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}
