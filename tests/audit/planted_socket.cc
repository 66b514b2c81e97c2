// A planted outbound call for the socket audit's own test
// (tests/volent/audit.sh, docs/decisions/0020-socket-audit.md): it resolves a
// name and connects, as only the egress gate may. Compiled into an object by
// that test and nowhere else; never linked into anything.
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

int PlantedConnect(const char* host) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host, "80", &hints, &found) != 0) return -1;
  int fd = ::socket(found->ai_family, found->ai_socktype, 0);
  int rc = fd < 0 ? -1 : ::connect(fd, found->ai_addr, found->ai_addrlen);
  freeaddrinfo(found);
  if (fd >= 0) ::close(fd);
  return rc;
}
