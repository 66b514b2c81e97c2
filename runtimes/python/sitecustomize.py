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
