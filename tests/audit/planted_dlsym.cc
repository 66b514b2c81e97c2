// A planted run-time lookup for the socket audit's own test
// (tests/volent/audit.sh): dlsym can reach connect without naming it in the
// symbol table, so the audit refuses dlsym everywhere. Compiled by that test
// only; never linked.
#include <dlfcn.h>

void* PlantedLookup() { return dlsym(RTLD_DEFAULT, "connect"); }
