// Writing a run's output files into the folder `ampoule run --outputs DIR`
// names.
//
// The names come from the guest, so every one is checked again
// (run::CheckOutputName: relative, no "." or "..", printable UTF-8) and the
// path below DIR is walked one folder at a time with O_NOFOLLOW: a symbolic
// link already in DIR (say a/ -> /etc) can never carry a write outside it.
// DIR itself is the user's choice and is created if missing. Each file is
// written whole through a temporary file renamed into place, replacing a
// file of the same name.
#pragma once

#include <string>
#include <vector>

#include "ampoule/run/run_program.h"
#include "core/result.h"

namespace ampoule::cli {

// Errors name the file and the reason; files written before an error stay.
core::Status WriteOutputFiles(const std::string& dir, const std::vector<run::OutputFileBytes>& files);

}  // namespace ampoule::cli
