// Where `ampoule` looks for a kernel when none is named.
//
// Rule: $AMPOULE_KERNEL when set and not empty; otherwise
// <folder of the running executable>/../share/ampoule/ampoule.kernel, so an
// installed tree (bin/ampoule beside share/ampoule/) and a build tree
// (build/bin/ampoule beside build/share/ampoule/, where
// scripts/build-kernel.sh puts the kernel) both work without configuration.
//
// Thread-safe: reads the environment and /proc only.
#pragma once

#include <string>
#include <string_view>


namespace ampoule::kernel {

inline constexpr std::string_view kKernelPathEnv = "AMPOULE_KERNEL";

// The default kernel path by the rule above (whether or not a file is
// there). Returns "" only when $AMPOULE_KERNEL is unset and the running
// executable's path cannot be read (no /proc): callers then need an explicit
// kernel path.
std::string DefaultKernelPath();

// The executable-relative part of the rule, for `exe` (an absolute path).
std::string KernelPathBesideExecutable(std::string_view exe);

}  // namespace ampoule::kernel
