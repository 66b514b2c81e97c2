# Opening a socket fails inside the guest, as an ordinary Python exception.
import socket

print("resolving a name")
try:
    socket.create_connection(("example.com", 80), timeout=1)
except OSError as e:
    print("create_connection:", type(e).__name__)
print("opening a socket")
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.connect(("10.0.0.1", 80))
print("connected: this must never print")
