# functools and operator: reduce, partial, caching, dispatch, ordering, accessors.
import functools
import operator
from collections import namedtuple

print(functools.reduce(operator.mul, range(1, 11)), functools.reduce(lambda a, b: a + b, [], 0))
int2 = functools.partial(int, base=2)
print(int2("1011"), int2.func.__name__, int2.keywords)


@functools.lru_cache(maxsize=None)
def ways(n, coins=(1, 2, 5, 10, 20, 50, 100, 200)):
    if n == 0:
        return 1
    if n < 0 or not coins:
        return 0
    return ways(n - coins[0], coins) + ways(n, coins[1:])


print(ways(200), ways.cache_info())


@functools.singledispatch
def describe(x):
    return f"object {x!r}"


@describe.register
def _(x: int):
    return f"int {x}"


@describe.register(list)
def _(x):
    return f"list of {len(x)}"


print(describe(3), describe([1, 2]), describe("s"), describe(True))


@functools.total_ordering
class Version:
    def __init__(self, text):
        self.parts = tuple(int(p) for p in text.split("."))

    def __eq__(self, other):
        return self.parts == other.parts

    def __lt__(self, other):
        return self.parts < other.parts

    def __repr__(self):
        return ".".join(map(str, self.parts))


vs = [Version(v) for v in ["1.10.0", "1.2.3", "1.2.10", "0.9"]]
print(sorted(vs), max(vs), Version("1.0") >= Version("1.0"), Version("2.0") <= Version("1.9"))
print(sorted(["b", "A", "c", "B"], key=functools.cmp_to_key(lambda a, b: (a.lower() > b.lower()) - (a.lower() < b.lower()))))
P = namedtuple("P", "name age")
people = [P("x", 30), P("y", 25), P("z", 30)]
print(sorted(people, key=operator.attrgetter("age", "name")), list(map(operator.itemgetter(1, 0), [(1, 2), (3, 4)])))
print(operator.methodcaller("replace", "a", "o")("banana"), operator.add(2, 3), operator.neg(5), operator.contains([1], 1))
print(operator.truediv(7, 2), operator.floordiv(7, 2), operator.pow(2, 10), operator.getitem("abc", slice(1, None)))


class Lazy:
    @functools.cached_property
    def value(self):
        print("computing")
        return 42


z = Lazy()
print(z.value, z.value)
