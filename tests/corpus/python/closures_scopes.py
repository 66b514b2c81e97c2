# Closures and scopes: counters, nonlocal, late binding, decorators, lambdas.
import functools


def make_counter(start=0):
    count = start

    def inc(step=1):
        nonlocal count
        count += step
        return count

    return inc


c1, c2 = make_counter(), make_counter(100)
print(c1(), c1(), c1(5), c2(), c1.__closure__[0].cell_contents)
late = [lambda: i for i in range(3)]
early = [lambda i=i: i for i in range(3)]
print([f() for f in late], [f() for f in early])
calls = []


def logged(prefix):
    def decorator(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            calls.append(f"{prefix}{fn.__name__}{args}")
            return fn(*args, **kwargs)
        return wrapper
    return decorator


@logged(">> ")
def add(a, b):
    """Adds."""
    return a + b


print(add(2, 3), add(b=1, a=4), add.__name__, add.__doc__, calls)
x = "global"


def outer():
    x = "enclosing"

    def inner():
        return x

    return inner()


print(outer(), x, (lambda *a, **k: (a, sorted(k)))(1, 2, z=3, y=4))
compose = lambda *fs: functools.reduce(lambda f, g: lambda v: g(f(v)), fs)  # noqa: E731
print(compose(str.strip, str.upper, lambda s: s + "!")("  hi  "))
memo = {}


def fib(n):
    if n not in memo:
        memo[n] = n if n < 2 else fib(n - 1) + fib(n - 2)
    return memo[n]


print(fib(90), len(memo))
