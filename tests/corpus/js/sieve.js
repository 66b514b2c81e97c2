// A prime sieve on a Uint8Array: counts, gaps, twin primes, Goldbach checks.
const N = 300000;
const sieve = new Uint8Array(N + 1).fill(1);
sieve[0] = sieve[1] = 0;
for (let i = 2; i * i <= N; i++) if (sieve[i]) for (let j = i * i; j <= N; j += i) sieve[j] = 0;
const primes = [];
for (let i = 2; i <= N; i++) if (sieve[i]) primes.push(i);
print("primes below", N, primes.length, "last", primes.slice(-5).join(","));
let maxGap = 0, after = 0, twins = 0;
for (let k = 1; k < primes.length; k++) {
  const g = primes[k] - primes[k - 1];
  if (g > maxGap) { maxGap = g; after = primes[k - 1]; }
  if (g === 2) twins++;
}
print("largest gap", maxGap, "after", after, "twin pairs", twins);
print("pi(10^k)", [1, 2, 3, 4, 5].map((k) => primes.filter((p) => p <= 10 ** k).length).join(","));
for (const even of [100, 1000, 9998, 123456]) {
  const p = primes.find((q) => sieve[even - q]);
  print("goldbach", even, "=", p, "+", even - p);
}
