# Deep recursion is the guest's own RecursionError, which a program can catch.
import sys


def depth(n):
    return depth(n + 1) if n >= 0 else n


try:
    depth(0)
except RecursionError as e:
    print("caught RecursionError:", e)


def nested_list(n):
    out = []
    for _ in range(n):
        out = [out]
    return out


try:
    repr(nested_list(100000))
except RecursionError as e:
    print("repr of a deep list:", type(e).__name__)
sys.setrecursionlimit(400)
print("limit now", sys.getrecursionlimit())


def ackermann(m, n):
    if m == 0:
        return n + 1
    if n == 0:
        return ackermann(m - 1, 1)
    return ackermann(m - 1, ackermann(m, n - 1))


print("ackermann(2, 3) =", ackermann(2, 3))
print("still running")
