/* Extends wasi-libc's <sys/ioctl.h> with the terminal-size request QuickJS
 * uses (os.ttyGetWinSize). wasi-libc's ioctl() rejects requests it does not
 * know, so the call fails and QuickJS returns null, as for a non-terminal. */
#ifndef AMPOULE_COMPAT_SYS_IOCTL_H
#define AMPOULE_COMPAT_SYS_IOCTL_H

#include_next <sys/ioctl.h>

#define __NEED_struct_winsize
#include <bits/alltypes.h>

#ifndef TIOCGWINSZ
#define TIOCGWINSZ 0x5413 /* Linux's value */
#endif

#endif
