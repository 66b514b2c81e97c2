// For the guest programs that print what each call did: an errno's name
// (the same on every host, unlike its number or strerror text), and TRY,
// which runs a call and prints "LABEL: OK" or "LABEL: ENAME".
#pragma once

#include <errno.h>
#include <stdio.h>

static inline const char* errno_name(int e) {
  switch (e) {
    case 0: return "OK";
    case EROFS: return "EROFS";
    case EEXIST: return "EEXIST";
    case ENOENT: return "ENOENT";
    case EBADF: return "EBADF";
    case EISDIR: return "EISDIR";
    case ENOTDIR: return "ENOTDIR";
    case ENOTEMPTY: return "ENOTEMPTY";
    case EINVAL: return "EINVAL";
    case EPERM: return "EPERM";
    case ELOOP: return "ELOOP";
    case ENOTCAPABLE: return "ENOTCAPABLE";
    case ENOSPC: return "ENOSPC";
    case EDQUOT: return "EDQUOT";
    case ENAMETOOLONG: return "ENAMETOOLONG";
    default: return "other";
  }
}

#define TRY(label, expr)                                       \
  do {                                                         \
    errno = 0;                                                 \
    int ok_ = (expr);                                          \
    printf("%s: %s\n", label, ok_ ? "OK" : errno_name(errno)); \
  } while (0)
