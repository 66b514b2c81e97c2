# Big integers: Fibonacci by fast doubling, Collatz lengths, digit sums.
def fib(n):
    def pair(k):
        if k == 0:
            return 0, 1
        a, b = pair(k >> 1)
        c = a * (2 * b - a)
        d = a * a + b * b
        return (d, c + d) if k & 1 else (c, d)
    return pair(n)[0]


f = fib(10000)
print(len(str(f)), str(f)[:30], str(f)[-30:])
a, b = 0, 1
for _ in range(300):
    a, b = b, a + b
print(a == fib(300), a)
print([fib(n) for n in range(20)])


def collatz(n):
    steps = 0
    while n != 1:
        n = 3 * n + 1 if n & 1 else n >> 1
        steps += 1
    return steps


best = max(range(1, 3000), key=collatz)
print("collatz", best, collatz(best), collatz(2 ** 100 + 1))
print(sum(int(c) for c in str(fib(1000))), int(str(fib(500))[::-1]) % 99991)
