// Deterministic WASI preview 1 host. (Being written.)
#pragma once
