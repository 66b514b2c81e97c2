#!/usr/bin/env python3
"""The local server of tests/volent/egress_cli.sh.

Answers 200 `ok` to any GET or POST; under /redirect/ it answers 302
instead: /redirect/ok to /status on itself, /redirect/metadata to the cloud
metadata address, /redirect/loop to itself again, /redirect/closed to a
port nothing listens on. Prints `PORT CLOSED_PORT` on its first line, then
serves until killed.
"""
import http.server
import socket


def free_port():
    """A loopback port nothing listens on: bound, then released."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


CLOSED = free_port()
TARGETS = {"/redirect/ok": "/status", "/redirect/metadata": "http://169.254.169.254/latest/meta-data/",
           "/redirect/loop": "/redirect/loop", "/redirect/closed": f"http://127.0.0.1:{CLOSED}/"}


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path in TARGETS:
            self.send_response(302)
            self.send_header("Location", TARGETS[self.path])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    do_POST = do_GET

    def log_message(self, *args):
        pass  # the test reads volent's output, not this server's


server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], CLOSED, flush=True)
server.serve_forever()
