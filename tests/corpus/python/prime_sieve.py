# A prime sieve: counts, gaps, twin primes, Goldbach checks.
N = 300_000
sieve = bytearray([1]) * (N + 1)
sieve[0:2] = b"\x00\x00"
for i in range(2, int(N ** 0.5) + 1):
    if sieve[i]:
        sieve[i * i::i] = bytes(len(range(i * i, N + 1, i)))
primes = [i for i, p in enumerate(sieve) if p]
print("primes below", N, len(primes), "last", primes[-5:])
print("first", primes[:20])
gaps = [b - a for a, b in zip(primes, primes[1:])]
g = max(gaps)
print("largest gap", g, "after", primes[gaps.index(g)])
print("twin pairs", sum(1 for d in gaps if d == 2))
print("pi(10^k)", [sum(sieve[: 10 ** k + 1]) for k in range(1, 6)])
for even in [100, 1000, 9998, 123456]:
    p = next(p for p in primes if sieve[even - p])
    print("goldbach", even, "=", p, "+", even - p)


def is_prime(n):
    if n < 2:
        return False
    for p in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37):
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for a in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37):
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = pow(x, 2, n)
            if x == n - 1:
                break
        else:
            return False
    return True


print("miller-rabin agrees", all(is_prime(n) == bool(sieve[n]) for n in range(20000)))
print("big primes", [n for n in range(10 ** 18, 10 ** 18 + 200) if is_prime(n)], is_prime(2 ** 89 - 1))
