#include "spectest/runner.h"
