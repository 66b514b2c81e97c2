# What WASI cannot do fails at once, with an error of the usual type that says
# why (docs/runtimes.md, "What works, what fails, and how").
import asyncio
import threading


def attempt(what, action):
    try:
        action()
    except Exception as e:  # noqa: BLE001 - the point is to show what is raised
        print(f"{what}: {type(e).__name__}: {e}")
    else:
        print(f"{what}: no error")


def import_(name):
    return lambda: __import__(name)


attempt("thread", lambda: threading.Thread(target=print).start())
attempt("subprocess", lambda: __import__("subprocess").run(["true"]))
attempt("socket", lambda: __import__("socket").socket())
attempt("ssl", import_("ssl"))
attempt("ctypes", import_("ctypes"))
attempt("multiprocessing", lambda: __import__("multiprocessing").Pool(2))


# A program that tries an executor and goes on must not die when asyncio.run
# shuts the (threadless) default executor down.
async def executor_then_go_on():
    try:
        await asyncio.get_running_loop().run_in_executor(None, print, "never printed")
    except RuntimeError:
        return "caught, and asyncio.run returned"


print("run_in_executor:", asyncio.run(executor_then_go_on()))
