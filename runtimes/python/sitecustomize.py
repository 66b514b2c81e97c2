# Shipped at the root of the guest's python311.zip; `site` imports it at start-up.
#
# CPython's WASI build has no name-resolution functions in _socket, so code that
# opens a connection (socket.create_connection, urllib, http.client) would die
# with "AttributeError: module '_socket' has no attribute 'getaddrinfo'". The
# guest has no network at all; say so with the exception network code expects
# (socket.gaierror, an OSError), the same kind socket.socket() already raises.
# Only builtin modules are touched, so start-up stays cheap.
import _socket
import errno


def _no_network(*_args, **_kwargs):
    raise _socket.gaierror(errno.ENOTSUP, "name resolution is not supported: "
                           "this WASI sandbox has no network")


for _name in ("getaddrinfo", "getnameinfo", "gethostbyname", "gethostbyname_ex",
              "gethostbyaddr", "getservbyname", "getservbyport", "getprotobyname"):
    if not hasattr(_socket, _name):
        setattr(_socket, _name, _no_network)
del _name


# asyncio assumes threads, sockets and signals, none of which WASI has. Two
# places matter, each patched right after its module is first imported (the
# finder steps in for those two names only; everything else imports as usual):
#
# - asyncio.selector_events: the event loop opens a socket pair at creation
#   (its "self-pipe", which wakes the loop from other threads and signal
#   handlers), so asyncio.run() failed with "OSError: [Errno 58] Not
#   supported" before running anything. Nothing but the loop itself can
#   schedule work here, so the self-pipe becomes a no-op.
# - asyncio.base_events: asyncio.run() shuts the default executor down on a
#   new thread. A program that tried loop.run_in_executor (which fails, as
#   threads do) and went on would die at exit; the executor never started a
#   thread, so it is shut down in place.
def _patch_selector_events(module):
    loop = module.BaseSelectorEventLoop
    loop._make_self_pipe = lambda self: None
    loop._close_self_pipe = lambda self: None
    loop._write_to_self = lambda self: None


def _patch_base_events(module):
    async def shutdown_default_executor(self):
        self._executor_shutdown_called = True
        if self._default_executor is not None:
            self._default_executor.shutdown(wait=True)

    module.BaseEventLoop.shutdown_default_executor = shutdown_default_executor


class _PatchAfterImport:
    _PATCHES = {
        "asyncio.selector_events": _patch_selector_events,
        "asyncio.base_events": _patch_base_events,
    }

    class _Loader:
        def __init__(self, inner, patch):
            self._inner, self._patch = inner, patch

        def create_module(self, spec):
            return self._inner.create_module(spec)

        def exec_module(self, module):
            self._inner.exec_module(module)
            self._patch(module)

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        patch = cls._PATCHES.get(name)
        if patch is None:
            return None
        import importlib.machinery
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None:
            spec.loader = cls._Loader(spec.loader, patch)
        return spec


# What WASI cannot do fails at once, with the reason (docs/runtimes.md, "What
# works, what fails, and how"). Each error keeps the type code expects, so
# `except ImportError`, `except OSError` and `except RuntimeError` still work.
_SANDBOX = "in Ampoule's WebAssembly sandbox (WASI preview 1)"
_NO_MODULE = {
    "_ssl": "TLS (the ssl module) is not available " + _SANDBOX + ": the guest has no network",
    "ctypes": "ctypes is not available " + _SANDBOX + ": WebAssembly cannot load or call native code",
    "_ctypes": "ctypes is not available " + _SANDBOX + ": WebAssembly cannot load or call native code",
    "_multiprocessing": "multiprocessing is not available " + _SANDBOX + ": there are no processes",
    "_posixsubprocess": "subprocesses are not available " + _SANDBOX + ": there are no processes",
    "_posixshmem": "shared memory is not available " + _SANDBOX + ": there are no processes",
}


class _Unavailable:
    """Last on sys.meta_path: asked only about modules no other finder has."""

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        why = _NO_MODULE.get(name)
        if why is None:
            return None
        raise ModuleNotFoundError(f"No module named '{name}': {why}", name=name)


def _no_threads(*_args, **_kwargs):
    raise RuntimeError("can't start new thread: threads are not available " + _SANDBOX)


class _NoSocket(_socket.socket):
    __slots__ = ()  # socket.socket, a subclass, adds __weakref__ itself

    def __init__(self, *_args, **_kwargs):
        raise OSError(errno.ENOTSUP, "sockets are not available " + _SANDBOX + ": the guest has no network")


import _thread
import sys

# CPython's WASI build has no threads (Python/thread_pthread_stubs.h): its
# start_new_thread always fails, with a message that does not say why.
_thread.start_new_thread = _thread.start_new = _no_threads
_socket.socket = _socket.SocketType = _NoSocket
sys.meta_path.insert(0, _PatchAfterImport)
sys.meta_path.append(_Unavailable)
del sys
