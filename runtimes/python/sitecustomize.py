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


# asyncio's event loop opens a socket pair at creation (its "self-pipe", which
# wakes the loop from other threads and signal handlers). WASI has neither
# sockets nor threads nor signals, so asyncio.run() failed with "OSError:
# [Errno 58] Not supported" before running anything. The loop needs no
# wake-up here: nothing but the loop itself can schedule work. This finder
# steps in only when asyncio.selector_events is imported, and then makes the
# self-pipe a no-op; everything else imports as usual.
class _AsyncioWithoutSelfPipe:
    class _Loader:
        def __init__(self, inner):
            self._inner = inner

        def create_module(self, spec):
            return self._inner.create_module(spec)

        def exec_module(self, module):
            self._inner.exec_module(module)
            loop = module.BaseSelectorEventLoop
            loop._make_self_pipe = lambda self: None
            loop._close_self_pipe = lambda self: None
            loop._write_to_self = lambda self: None

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name != "asyncio.selector_events":
            return None
        import importlib.machinery
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None:
            spec.loader = cls._Loader(spec.loader)
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
sys.meta_path.insert(0, _AsyncioWithoutSelfPipe)
sys.meta_path.append(_Unavailable)
del sys
