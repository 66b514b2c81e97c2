// One-time libsodium initialisation, for every user of libsodium.
#pragma once

namespace core {

// Initialises libsodium once per process; later calls return at once.
// Aborts the process if libsodium cannot initialise (no usable random
// source), since no key could then be generated safely.
// Thread-safe.
void EnsureSodium();

}  // namespace core
