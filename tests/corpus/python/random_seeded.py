# random with an explicit seed: the Mersenne Twister gives the same stream everywhere.
import random

rng = random.Random(12345)
print([rng.randint(1, 100) for _ in range(10)])
print([round(rng.random(), 12) for _ in range(3)], rng.getrandbits(70), rng.randrange(0, 10 ** 20, 7))
deck = [f"{r}{s}" for s in "SHDC" for r in "A23456789TJQK"]
rng.shuffle(deck)
print(deck[:13])
print(rng.sample(range(1000), 8), rng.choice("abcdef"), rng.choices("xyz", weights=[5, 1, 1], k=10))
print(round(rng.uniform(-1, 1), 12), round(rng.gauss(0, 1), 12), round(rng.expovariate(2.0), 12))
random.seed("a string seed")
print(random.random(), random.randbytes(8).hex())
random.seed(2 ** 100 + 3)
print(random.random(), random.sample(["red", "green", "blue", "cyan"], 2))
