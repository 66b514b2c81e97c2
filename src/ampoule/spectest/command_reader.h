// Reads the JSON command list that `wast2json` writes for one .wast script.
//
// The JSON is produced by a tool we run ourselves, but it is still read
// defensively: a missing or mistyped field is an error naming the command's
// line, never a crash or an exception.
#pragma once

#include <string_view>

#include "ampoule/spectest/command.h"
#include "core/result.h"

namespace ampoule::spectest {

// Parses the whole document. Fails on malformed JSON, an unknown command
// type, a missing required field, or a value that does not parse (see
// ParseSpecValue); the message names the command's line when it has one.
core::Result<CommandFile> ReadCommandFile(std::string_view json_text);

}  // namespace ampoule::spectest
