# Output decided by the run's seed: `random` seeds itself from random_get, and
# os.urandom reads it directly. Every value has its top bit set and a fixed
# width, so that a different seed changes the bytes of stdout but neither its
# length nor the work done (fuel): CPython's int code takes value-dependent
# paths for leading zero bytes and digits.
import os
import random


def word():
    return random.getrandbits(30) | (1 << 29)


print("random", " ".join("%08x" % word() for _ in range(4)))
print("urandom", os.urandom(16).hex())
print("reseeded", "%08x" % (random.Random(word()).getrandbits(30) | (1 << 29)))
