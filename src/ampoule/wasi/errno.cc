#include "ampoule/wasi/errno.h"

namespace ampoule::wasi {
namespace {

struct ErrnoInfo {
  const char* name;
  const char* text;
};

constexpr ErrnoInfo kErrnos[] = {
#define AMP_WASI_ERRNO(id, code, name, text) {name, text},
#include "ampoule/wasi/errno.def"
#undef AMP_WASI_ERRNO
};
constexpr unsigned kErrnoCount = sizeof(kErrnos) / sizeof(kErrnos[0]);

}  // namespace

const char* ErrnoName(Errno e) {
  unsigned i = unsigned(e);
  return i < kErrnoCount ? kErrnos[i].name : "E?";
}

const char* ErrnoText(Errno e) {
  unsigned i = unsigned(e);
  return i < kErrnoCount ? kErrnos[i].text : "unknown error";
}

}  // namespace ampoule::wasi
