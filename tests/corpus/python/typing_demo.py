# typing: type hints at run time, NamedTuple, TypedDict, Protocol, generics, Literal.
from typing import (Any, Callable, Generic, Literal, NamedTuple, Optional, Protocol, TypedDict, TypeVar,
                    get_args, get_origin, get_type_hints, runtime_checkable)

T = TypeVar("T")


class Stack(Generic[T]):
    def __init__(self) -> None:
        self.items: list[T] = []

    def push(self, item: T) -> None:
        self.items.append(item)

    def pop(self) -> T:
        return self.items.pop()


class Pair(NamedTuple):
    left: int
    right: str = "r"


class Movie(TypedDict, total=False):
    title: str
    year: int


@runtime_checkable
class Closable(Protocol):
    def close(self) -> None: ...


def f(a: int, b: Optional[str] = None, *rest: float, cb: Callable[[int], str] | None = None) -> dict[str, Any]:
    return {}


s = Stack[int]()
s.push(1)
s.push(2)
print(s.pop(), s.items, Stack[int].__origin__ is Stack)
print(Pair(1), Pair._field_defaults, Pair.__annotations__)
m: Movie = {"title": "Up"}
print(m, Movie.__required_keys__, sorted(Movie.__optional_keys__))
print(isinstance(open.__class__, type), isinstance(__import__("io").StringIO(), Closable), isinstance(3, Closable))
hints = get_type_hints(f)
for name in sorted(hints):
    print(name, hints[name], get_origin(hints[name]), get_args(hints[name]))
print(get_args(Literal["a", "b"]), get_origin(list[int]), get_args(dict[str, tuple[int, ...]]))
