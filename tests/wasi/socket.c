// There is no network: socket calls fail with ENOTSOCK on ordinary
// descriptors and EBADF on closed ones.
#include <errno.h>
#include <stdio.h>
#include <sys/socket.h>

static const char* name(int e) {
  return e == ENOTSOCK ? "ENOTSOCK" : e == EBADF ? "EBADF" : e == ENOTSUP ? "ENOTSUP" : "other";
}

int main(void) {
  char buf[4];
  errno = 0;
  printf("send on stdout: %zd %s\n", send(1, "x", 1, 0), name(errno));
  errno = 0;
  printf("recv on stdin: %zd %s\n", recv(0, buf, sizeof buf, 0), name(errno));
  errno = 0;
  printf("shutdown on stderr: %d %s\n", shutdown(2, SHUT_RDWR), name(errno));
  errno = 0;
  printf("shutdown on fd 99: %d %s\n", shutdown(99, SHUT_RDWR), name(errno));
  return 0;
}
