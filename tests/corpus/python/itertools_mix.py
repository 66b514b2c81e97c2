# itertools: combinatorics, grouping, accumulation, slicing of infinite streams.
import itertools as it
import operator

print(list(it.permutations("abc", 2)), len(list(it.permutations(range(6)))))
print(list(it.combinations([1, 2, 3, 4], 3)), list(it.combinations_with_replacement("xy", 3)))
print(list(it.product("ab", [0, 1], repeat=1)), sum(1 for _ in it.product(range(3), repeat=4)))
data = sorted(["apple", "avocado", "banana", "blueberry", "cherry", "cranberry", "date"], key=lambda w: w[0])
print({k: list(g) for k, g in it.groupby(data, key=lambda w: w[0])})
print(list(it.accumulate([1, 2, 3, 4, 5])), list(it.accumulate([3, 1, 4, 1, 5], max)),
      list(it.accumulate(range(1, 6), operator.mul, initial=10)))
print(list(it.islice(it.count(10, 3), 5)), list(it.islice(it.cycle("abc"), 7)), list(it.repeat("z", 3)))
print(list(it.chain("ab", [1, 2], (None,))), list(it.chain.from_iterable([[1], [2, 3], []])))
print(list(it.pairwise("abcd")), list(it.zip_longest("ab", "wxyz", fillvalue="-")))
print(list(it.starmap(pow, [(2, 5), (3, 2), (10, 3)])), list(it.compress("abcdef", [1, 0, 1, 0, 1, 1])))
print(list(it.takewhile(lambda x: x < 5, [1, 4, 6, 4, 1])), list(it.dropwhile(lambda x: x < 5, [1, 4, 6, 4, 1])),
      list(it.filterfalse(str.isdigit, "a1b2c3")))
a, b = it.tee(iter(range(5)))
print(list(a), list(zip(b, b)))
print(list(it.islice(it.permutations(range(10)), 1000, 1003)))
