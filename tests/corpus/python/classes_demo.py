# Classes: inheritance, MRO, properties, slots, class methods, dunders, ABCs, descriptors.
from abc import ABC, abstractmethod


class Shape(ABC):
    count = 0

    def __init__(self, name):
        self.name = name
        Shape.count += 1

    @abstractmethod
    def area(self): ...

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r}, area={self.area():.2f})"

    def __lt__(self, other):
        return self.area() < other.area()


class Rect(Shape):
    def __init__(self, w, h):
        super().__init__("rect")
        self._w, self._h = w, h

    @property
    def w(self):
        return self._w

    @w.setter
    def w(self, value):
        if value <= 0:
            raise ValueError("width must be positive")
        self._w = value

    def area(self):
        return self._w * self._h

    @classmethod
    def square(cls, side):
        return cls(side, side)


class Circle(Shape):
    __slots__ = ("r",)

    def __init__(self, r):
        super().__init__("circle")
        self.r = r

    def area(self):
        return 3.141592653589793 * self.r ** 2


class Vector:
    def __init__(self, *xs):
        self.xs = xs

    def __add__(self, o):
        return Vector(*(a + b for a, b in zip(self.xs, o.xs)))

    def __mul__(self, k):
        return Vector(*(a * k for a in self.xs))

    __rmul__ = __mul__

    def __eq__(self, o):
        return self.xs == o.xs

    def __len__(self):
        return len(self.xs)

    def __getitem__(self, i):
        return self.xs[i]

    def __repr__(self):
        return f"Vector{self.xs}"


class A:
    def who(self):
        return "A"


class B(A):
    def who(self):
        return "B>" + super().who()


class C(A):
    def who(self):
        return "C>" + super().who()


class D(B, C):
    def who(self):
        return "D>" + super().who()


shapes = [Rect(3, 4), Circle(1), Rect.square(2)]
print(sorted(shapes), Shape.count)
try:
    Shape("x")
except TypeError as e:
    print("TypeError:", e)
r = shapes[0]
r.w = 10
print(r.area(), r.w)
try:
    r.w = -1
except ValueError as e:
    print("ValueError:", e)
v = Vector(1, 2, 3)
print(v + Vector(1, 1, 1), 2 * v, v * 3, len(v), list(v), v == Vector(1, 2, 3), v[-1])
print(D().who(), [k.__name__ for k in D.__mro__])
try:
    shapes[1].other = 1
except AttributeError as e:
    print("AttributeError:", type(e).__name__)
print(isinstance(r, Shape), issubclass(D, A), hasattr(Circle(2), "__dict__"), type(v).__name__, callable(Vector))


class Meta(type):
    def __new__(mcs, name, bases, ns):
        ns["registered"] = name.lower()
        return super().__new__(mcs, name, bases, ns)


class Plugin(metaclass=Meta):
    pass


print(Plugin.registered, type(Plugin).__name__)
