#include "wasi/wasi_host.h"
