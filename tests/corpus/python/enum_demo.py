# enum: Enum, IntEnum, StrEnum (3.11), Flag, auto, unique, lookups.
from enum import Enum, Flag, IntEnum, StrEnum, auto, unique


@unique
class Color(Enum):
    RED = 1
    GREEN = 2
    BLUE = 3

    @property
    def hex(self):
        return {1: "#f00", 2: "#0f0", 3: "#00f"}[self.value]


class Priority(IntEnum):
    LOW = auto()
    MEDIUM = auto()
    HIGH = auto()


class Mode(StrEnum):
    READ = auto()
    WRITE = auto()


class Perm(Flag):
    R = 4
    W = 2
    X = 1
    RWX = 7


print(list(Color), Color(2), Color["BLUE"], Color.RED.name, Color.RED.value, Color.GREEN.hex)
print(Priority.HIGH > Priority.LOW, Priority.MEDIUM + 1, sorted([Priority.HIGH, Priority.LOW]), int(Priority.LOW))
print(Mode.READ, Mode.WRITE.upper(), Mode("read") is Mode.READ, f"{Mode.WRITE}", repr(Mode.READ))
rw = Perm.R | Perm.W
print(rw, Perm.R in rw, Perm.X in rw, rw & Perm.W, ~Perm.R, Perm.RWX == Perm(7), list(Perm.RWX), bool(Perm(0)))
try:
    Color(7)
except ValueError as e:
    print("ValueError:", e)
try:
    @unique
    class Dup(Enum):
        A = 1
        B = 1
except ValueError as e:
    print("ValueError:", e)
print(Color.RED is Color(1), isinstance(Color.RED, Color), len(Color), Color.__members__.keys())
