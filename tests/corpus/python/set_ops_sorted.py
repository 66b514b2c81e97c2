# Sets and dicts without depending on hash order: operations, then sorted output.
a = set("abracadabra")
b = set("alacazam")
print(sorted(a), sorted(b), sorted(a | b), sorted(a & b), sorted(a - b), sorted(a ^ b))
print(a <= a | b, {1, 2} < {1, 2, 3}, frozenset([3, 1]) == {1, 3}, {1, 2}.isdisjoint({3}), len(a))
words = "one two three two one four five four six".split()
first_seen = list(dict.fromkeys(words))
print(first_seen, sorted(set(words), key=words.index))
inventory = {"apples": 5, "pears": 0, "plums": 12}
inventory |= {"pears": 3, "kiwis": 7}
print(inventory, {k: v for k, v in inventory.items() if v > 4}, list(reversed(inventory)))
squares = {n: n * n for n in range(-3, 4)}
print(sorted({v for v in squares.values()}), max(squares, key=squares.get), sorted(squares.items())[:3])
nested = {frozenset({1, 2}): "a", frozenset({2, 3}): "b"}
print(sorted((sorted(k), v) for k, v in nested.items()), {(1, 2): 3}[(1, 2)], 2 in {1: 2}, 1 in {1: 2})
print(sorted({1.0, 2, 2.0, True, 0, False}), {0.1 + 0.2, 0.3} == {0.3, 0.30000000000000004})
