# Generators: pipelines, send, yield from with a return value, close, expressions.
import itertools


def numbers():
    n = 0
    while True:
        yield n
        n += 1


def evens(source):
    for x in source:
        if x % 2 == 0:
            yield x


def squares(source):
    yield from (x * x for x in source)


print(list(itertools.islice(squares(evens(numbers())), 8)))


def averager():
    total, count, avg = 0.0, 0, None
    while True:
        value = yield avg
        if value is None:
            return count
        total += value
        count += 1
        avg = total / count


def delegate(results):
    results.append((yield from averager()))


results = []
g = delegate(results)
next(g)
for v in [10, 20, 30, 45]:
    print("running average", g.send(v))
try:
    g.send(None)
except StopIteration:
    print("count returned through yield from:", results)


def tracked():
    try:
        yield 1
        yield 2
    finally:
        print("cleanup ran")


t = tracked()
print(next(t))
t.close()
gen = (c.upper() for c in "lazy" if c != "z")
print(type(gen).__name__, list(gen), list(gen))
fib = lambda: (yield from itertools.accumulate(itertools.repeat(1), lambda a, _: a * 2))  # noqa: E731
print(list(itertools.islice(fib(), 10)))


def chunked(iterable, n):
    it = iter(iterable)
    while chunk := list(itertools.islice(it, n)):
        yield chunk


print(list(chunked(range(10), 4)), sum(x for x in range(10 ** 5) if x % 7 == 3))
