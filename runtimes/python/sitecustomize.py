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


import sys

sys.meta_path.insert(0, _AsyncioWithoutSelfPipe)
del sys
