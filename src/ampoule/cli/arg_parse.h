// Parsing numbers on command lines: whole numbers, byte counts with binary
// suffixes, seconds. Shared by the commands in src/ampoule/cli.
#pragma once

#include <cstdint>
#include <string_view>

namespace ampoule::cli {

// A decimal whole number that fits in 64 bits; no sign, no spaces.
bool ParseU64(std::string_view text, uint64_t* out);

// "64M" -> 64 MiB. Suffixes K, M, G (powers of 1024), either case.
bool ParseBytes(std::string_view text, uint64_t* out);

// "2", "0.5": a positive number of seconds, at most a day.
bool ParseSeconds(std::string_view text, double* out);

}  // namespace ampoule::cli
