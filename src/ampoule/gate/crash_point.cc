#include "ampoule/gate/crash_point.h"

#include <csignal>
#include <cstdlib>
#include <cstring>

namespace ampoule::gate {

void CrashPoint(const char* name) {
  const char* wanted = getenv("AMPOULE_GATE_CRASH_AT");
  if (wanted != nullptr && strcmp(wanted, name) == 0) raise(SIGKILL);
}

}  // namespace ampoule::gate
