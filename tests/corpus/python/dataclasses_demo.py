# dataclasses: defaults, factories, ordering, frozen, asdict, replace, post-init.
from dataclasses import FrozenInstanceError, asdict, astuple, dataclass, field, fields, replace


@dataclass(order=True)
class Item:
    sort_index: float = field(init=False, repr=False)
    name: str
    price: float
    tags: list = field(default_factory=list, compare=False)

    def __post_init__(self):
        self.sort_index = self.price


@dataclass(frozen=True, slots=True)
class Point:
    x: int
    y: int = 0

    def dist2(self):
        return self.x ** 2 + self.y ** 2


@dataclass(kw_only=True)
class Config:
    host: str = "localhost"
    port: int = 8080


items = [Item("b", 3.5, ["x"]), Item("a", 1.25), Item("c", 3.5)]
print(sorted(items))
print(asdict(items[0]), astuple(items[1]), [f.name for f in fields(Item)])
p = Point(3, 4)
print(p, p.dist2(), replace(p, y=0), p == Point(3, 4), hash(p) == hash(Point(3, 4)), Point.__slots__)
try:
    p.x = 5
except FrozenInstanceError as e:
    print("FrozenInstanceError:", e)
print(Config(port=9000), Config.__dataclass_params__.frozen)
try:
    Config("example.org")
except TypeError as e:
    print("TypeError:", e)
