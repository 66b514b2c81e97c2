#include "core/sodium_init.h"

#include <sodium.h>

#include <cstdio>
#include <cstdlib>

namespace core {

void EnsureSodium() {
  // A function-local static gives thread-safe, exactly-once initialisation.
  static const bool initialised = [] {
    if (sodium_init() < 0) {
      std::fputs("ampoule: libsodium failed to initialise (no random source?)\n", stderr);
      std::abort();
    }
    return true;
  }();
  (void)initialised;
}

}  // namespace core
