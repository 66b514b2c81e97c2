#!/usr/bin/env python3
"""A small internal order service for the Volent story (docs/demo.md).

It stands for a service inside the network that an agent's tools call
through the node's egress gate, and it honours `Idempotency-Key` the way
docs/journal.md asks receivers to: a key it has applied is answered as the
first time (plus "replayed": true) and never applied again.

    python3 orders_service.py [--port N] [--hold PREFIX] [--hold-seconds S]

Routes:
  GET  /api/orders/ID   the order (a fixed example), counted as a delivery
  POST /api/refunds     issues a refund (the side effect), applied once per key
  GET  /stats           what it saw: deliveries and applications per key
                        (request, deliveries, applied) and requests without a key

--hold PREFIX holds the answer to the first delivery of each key under PREFIX
(already applied) until the client goes away, or S seconds (default 30): the
node can be killed while the call is in flight, after the effect happened and
before its completion is journaled.

Standard library only. Listens on 127.0.0.1 (port 0: a free one) and prints
the port alone on the first line of stdout. SIGTERM or SIGINT stop it.
"""
import argparse
import http.server
import json
import select
import signal
import socket
import sys
import threading
import time

ORDER = {"currency": "EUR", "lines": [{"sku": "KETTLE-2L", "price": "47.59", "state": "damaged"}],
         "customer": "ana@example.com"}


class Seen:
    """Every delivery, per idempotency key. Guarded by one lock."""

    def __init__(self):
        self.lock = threading.Lock()
        self.keys = {}          # key -> {"path", "deliveries", "applied"}
        self.answers = {}       # key -> the first answer
        self.unkeyed = 0        # requests without Idempotency-Key
        self.refunds = 0

    def deliver(self, method, path, key, apply):
        """Counts a delivery; applies it (apply() -> answer) if its key is new.
        Returns (answer, first): first is True for a key's first delivery."""
        with self.lock:
            if key is None:
                self.unkeyed += 1
                return apply(), True
            seen = self.keys.setdefault(key, {"request": f"{method} {path}", "deliveries": 0, "applied": 0})
            seen["deliveries"] += 1
            if key in self.answers:
                return dict(self.answers[key], replayed=True), False
            answer = apply()
            seen["applied"] += 1
            self.answers[key] = answer
            return answer, True

    def refund(self):
        self.refunds += 1
        return {"refund_id": f"rf-{self.refunds}", "status": "issued"}

    def snapshot(self):
        with self.lock:
            return {"keys": json.loads(json.dumps(self.keys)), "unkeyed": self.unkeyed, "refunds_issued": self.refunds}


SEEN = Seen()
HOLD = {"prefix": None, "seconds": 30.0}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "orders-service"

    def log_message(self, *args):
        pass

    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def hold(self):
        """Waits until the client closes its connection or the hold ends."""
        deadline = time.monotonic() + HOLD["seconds"]
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.connection], [], [], 0.1)
            if ready:
                try:
                    if self.connection.recv(1, socket.MSG_PEEK) == b"":
                        return False
                except OSError:
                    return False
        return True

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(min(length, 1 << 20))

    def do_GET(self):
        if self.path == "/stats":
            return self.answer(200, SEEN.snapshot())
        if self.path.startswith("/api/orders/"):
            order_id = self.path[len("/api/orders/"):]
            answer, _ = SEEN.deliver("GET", self.path, self.headers.get("Idempotency-Key"),
                                     lambda: dict(ORDER, order_id=order_id))
            return self.answer(200, answer)
        self.answer(404, {"error": "no such route"})

    def do_POST(self):
        self.body()
        if self.path != "/api/refunds":
            return self.answer(404, {"error": "no such route"})
        answer, first = SEEN.deliver("POST", self.path, self.headers.get("Idempotency-Key"), SEEN.refund)
        if first and HOLD["prefix"] and self.path.startswith(HOLD["prefix"]) and not self.hold():
            self.close_connection = True
            return
        self.answer(200, answer)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--hold", metavar="PREFIX")
    parser.add_argument("--hold-seconds", type=float, default=30.0)
    args = parser.parse_args()
    HOLD.update(prefix=args.hold, seconds=args.hold_seconds)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever(poll_interval=0.1)
    except (KeyboardInterrupt, SystemExit):
        pass


if __name__ == "__main__":
    main()
