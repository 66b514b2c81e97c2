// One-time libsodium initialisation for the receipt library.
#pragma once

namespace ampoule::receipt {

// Initialises libsodium once per process; later calls return at once.
// Aborts the process if libsodium cannot initialise (no usable random
// source), since no key could then be generated safely.
// Thread-safe.
void EnsureSodium();

}  // namespace ampoule::receipt
