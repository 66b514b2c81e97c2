# Exceptions: handling, chaining, custom classes, exception groups (3.11), notes.
import errno
import traceback


class AppError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def risky(n):
    if n == 0:
        raise ZeroDivisionError("n is zero")
    if n < 0:
        raise AppError(n, f"negative input {n}")
    return 10 / n


for n in [5, 0, -2]:
    try:
        print("result", risky(n))
    except ZeroDivisionError as e:
        print("zero:", e)
    except AppError as e:
        print("app error", e.code, e.args)
    else:
        print("no error")
    finally:
        print("done", n)
try:
    try:
        {}["missing"]
    except KeyError as e:
        raise ValueError("lookup failed") from e
except ValueError as e:
    print(type(e).__name__, e, "caused by", repr(e.__cause__), e.__suppress_context__)
try:
    try:
        1 / 0
    except ZeroDivisionError:
        int("x")
except ValueError as e:
    print("context:", repr(e.__context__))
try:
    raise ExceptionGroup("batch", [ValueError("v1"), TypeError("t1"), ValueError("v2")])
except* ValueError as g:
    print("value errors:", [str(x) for x in g.exceptions])
except* TypeError as g:
    print("type errors:", [str(x) for x in g.exceptions])
e = KeyError("k")
e.add_note("note one")
e.add_note("note two")
print(e.__notes__, "".join(traceback.format_exception_only(type(e), e)), end="")
print(issubclass(FileNotFoundError, OSError), OSError(errno.ENOENT, "x").__class__.__name__, isinstance(e, LookupError))
for exc in [StopIteration(5), SystemExit(2), KeyboardInterrupt()]:
    print(type(exc).__name__, isinstance(exc, Exception), exc.args)
try:
    assert 1 + 1 == 3, "math is broken"
except AssertionError as err:
    print("AssertionError:", err)
