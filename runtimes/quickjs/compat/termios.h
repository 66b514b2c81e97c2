/* Stand-in for <termios.h> under WASI, for building QuickJS against wasi-libc:
 * WASI has no terminal control, so reading or changing terminal attributes
 * fails with ENOSYS (QuickJS's os.ttySetRaw then leaves the stream as it is). */
#ifndef AMPOULE_COMPAT_TERMIOS_H
#define AMPOULE_COMPAT_TERMIOS_H

#include <errno.h>

typedef unsigned int tcflag_t;
typedef unsigned char cc_t;
typedef unsigned int speed_t;

#define NCCS 32
struct termios {
  tcflag_t c_iflag, c_oflag, c_cflag, c_lflag;
  cc_t c_line;
  cc_t c_cc[NCCS];
};

/* Linux's values, so code that masks them behaves as it would there. */
#define VTIME 5
#define VMIN 6
#define IGNBRK 0000001
#define BRKINT 0000002
#define PARMRK 0000010
#define ISTRIP 0000040
#define INLCR 0000100
#define IGNCR 0000200
#define ICRNL 0000400
#define IXON 0002000
#define OPOST 0000001
#define CSIZE 0000060
#define CS8 0000060
#define PARENB 0000400
#define ISIG 0000001
#define ICANON 0000002
#define ECHO 0000010
#define ECHONL 0000100
#define IEXTEN 0100000
#define TCSANOW 0
#define TCSADRAIN 1
#define TCSAFLUSH 2

static inline int tcgetattr(int fd, struct termios *t) { (void)fd; (void)t; errno = ENOSYS; return -1; }
static inline int tcsetattr(int fd, int action, const struct termios *t) {
  (void)fd; (void)action; (void)t;
  errno = ENOSYS;
  return -1;
}
static inline void cfmakeraw(struct termios *t) { (void)t; }

#endif
