#!/usr/bin/env python3
"""The side-effect receiver of the chaos test (tests/volent/chaos_test.py, docs/chaos.md).

A local HTTP service standing for a payment provider or any API that honours
`Idempotency-Key`: it applies each key at most once and counts everything the
chaos test needs to tell "re-delivered" (harmless, the receiver deduplicated
it) from "duplicated" (a logical effect applied twice) and "lost" (never
applied).

    python3 chaos_receiver.py [--port N] [--ignore-key]
                                             # serve; first stdout line: the port
    (--ignore-key: apply every delivery, as a receiver that does not honour
    the header would: the control case of the chaos test, docs/chaos.md)
    python3 chaos_receiver.py --self-test    # check the rules below, then exit

Routes:
  POST /effect/AGENT/N   one side effect. The logical effect is the path (one
                         run per agent in the chaos test, so AGENT/N names
                         exactly one tool call). Every request counts as a
                         delivery of its key. A key never applied is applied
                         (per key and per logical effect) and answered
                         200 {"applied":true}; a key already applied is
                         answered as the first time plus "replayed":true and
                         is not applied again. A request without the header
                         is applied every time, so a node that forgets the
                         header shows up as duplicates, not as a pass.
  GET /stats             200, JSON: the counters (see Stats.snapshot).
  anything else          404 / 405, JSON.

Standard library only. Listens on 127.0.0.1 (port 0 by default: a free one)
and prints the port alone on the first line of stdout. SIGTERM or SIGINT
stops it with status 0. Thread-safe: the check-and-apply of a key is one
critical section, so two deliveries of one key racing still apply it once.
"""
import http.client
import http.server
import json
import re
import signal
import sys
import threading

EFFECT_PATH = re.compile(r"^/effect/([A-Za-z0-9._-]{1,200})/([0-9]{1,9})$")
MAX_BODY = 1024 * 1024


class Stats:
    """Everything the receiver saw. Guarded by one lock."""

    def __init__(self, ignore_key=False):
        # True: a receiver that does not honour Idempotency-Key (it applies
        # every delivery), to show what the chaos test sees without one.
        self.ignore_key = ignore_key
        self.lock = threading.Lock()
        self.deliveries = 0            # every POST /effect/... request
        self.applied = 0               # effects applied (keyed or not)
        self.unkeyed = 0               # requests without Idempotency-Key (each applied)
        self.key_deliveries = {}       # key -> deliveries
        self.key_applied = {}          # key -> times applied (0 or 1 by construction)
        self.key_effect = {}           # key -> the logical effect (path) it was first applied to
        self.key_body = {}             # key -> the body first applied
        self.answers = {}              # key -> the first answer (a dict)
        self.effect_applied = {}       # logical effect (path) -> times applied
        self.key_moved = []            # keys re-delivered to another path
        self.body_changed = []         # keys re-delivered with another body

    def deliver(self, path, key, body):
        """Counts one delivery and applies it if its key is new. Returns the
        answer (a dict)."""
        with self.lock:
            self.deliveries += 1
            if key is None:
                self.unkeyed += 1
                return self._apply(path, None, body)
            self.key_deliveries[key] = self.key_deliveries.get(key, 0) + 1
            first = self.answers.get(key)
            if first is not None and not self.ignore_key:
                if self.key_effect.get(key) != path and key not in self.key_moved:
                    self.key_moved.append(key)
                if self.key_body.get(key) != body and key not in self.body_changed:
                    self.body_changed.append(key)
                return dict(first, replayed=True)
            answer = self._apply(path, key, body)
            self.answers.setdefault(key, answer)
            return answer

    def _apply(self, path, key, body):
        self.applied += 1
        self.effect_applied[path] = self.effect_applied.get(path, 0) + 1
        if key is not None:
            self.key_applied[key] = self.key_applied.get(key, 0) + 1
            self.key_effect[key] = path
            self.key_body[key] = body
        return {"applied": True}

    def snapshot(self):
        with self.lock:
            redelivered = {k: n for k, n in self.key_deliveries.items() if n > 1}
            duplicated = {p: n for p, n in self.effect_applied.items() if n > 1}
            return {
                "deliveries": self.deliveries,
                "applied": self.applied,
                "unkeyed": self.unkeyed,
                "keys": len(self.key_deliveries),
                # keys delivered more than once (deduplicated here: harmless)
                "redelivered_keys": len(redelivered),
                "redeliveries": sum(n - 1 for n in redelivered.values()),
                "redelivered": dict(sorted(redelivered.items())),
                # logical effects applied more than once (the failure the test hunts)
                "duplicated_effects": len(duplicated),
                "duplicated": dict(sorted(duplicated.items())),
                "keys_moved": list(self.key_moved),
                "bodies_changed": list(self.body_changed),
                # per logical effect: times applied
                "effects": dict(sorted(self.effect_applied.items())),
            }


STATS = Stats()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: every answer has a Content-Length
    server_version = "chaos-receiver"
    sys_version = ""

    def log_message(self, *args):  # quiet: the chaos test reads /stats instead
        pass

    def answer(self, status, value):
        data = json.dumps(value, sort_keys=True).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def read_body(self):
        """The request body (Content-Length or chunked), or None if it is
        unreadable or over MAX_BODY (the connection is then closed)."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            body = b""
            while True:
                line = self.rfile.readline(1024)
                try:
                    size = int(line.split(b";")[0].strip(), 16)
                except ValueError:
                    return None
                if size == 0:
                    while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                        pass
                    return body
                if len(body) + size > MAX_BODY:
                    return None
                body += self.rfile.read(size)
                self.rfile.readline(1024)
        try:
            length = int(self.headers.get("Content-Length", "0") or 0)
        except ValueError:
            return None
        if length < 0 or length > MAX_BODY:
            return None
        return self.rfile.read(length)

    def do_POST(self):
        body = self.read_body()
        if body is None:
            self.close_connection = True
            self.answer(400, {"error": "unreadable body"})
            return
        m = EFFECT_PATH.match(self.path)
        if not m:
            self.answer(404, {"error": f"no route {self.path}"})
            return
        key = self.headers.get("Idempotency-Key")
        self.answer(200, STATS.deliver(self.path, key, body))

    def do_GET(self):
        if self.path == "/stats":
            self.answer(200, STATS.snapshot())
        elif EFFECT_PATH.match(self.path):
            self.answer(405, {"error": "effects are POSTed"})
        else:
            self.answer(404, {"error": f"no route {self.path}"})


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256


def serve(port):
    server = Server(("127.0.0.1", port), Handler)

    def stop(signum, frame):
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(server.server_address[1], flush=True)  # ready: whoever reads this may signal us
    server.serve_forever(poll_interval=0.2)
    server.server_close()
    return 0


def self_test():
    """The rules of the module docstring, checked against a server in this
    process over real sockets."""
    global STATS
    STATS = Stats()
    server = Server(("127.0.0.1", 0), Handler)
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    failures = []

    def post(path, key=None, body=b'{"a":1}', conn=None):
        c = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        headers = {"Content-Type": "application/json"}
        if key is not None:
            headers["Idempotency-Key"] = key
        c.request("POST", path, body=body, headers=headers)
        r = c.getresponse()
        data = r.read()
        if conn is None:
            c.close()
        return r.status, json.loads(data)

    def get(path):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        c.request("GET", path)
        r = c.getresponse()
        data = r.read()
        c.close()
        return r.status, json.loads(data)

    def check(name, cond, detail=""):
        print(("ok: " if cond else "FAIL: ") + name + ("" if cond else f": {detail}"), flush=True)
        if not cond:
            failures.append(name)

    s, a = post("/effect/a1/1", "a1/r1/2")
    check("a new key: 200 applied", s == 200 and a == {"applied": True}, f"{s} {a}")
    s, a = post("/effect/a1/1", "a1/r1/2")
    check("the same key again: 200 replayed, not applied", s == 200 and a == {"applied": True, "replayed": True},
          f"{s} {a}")
    # kept-alive connection, several effects on it
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    for n in (2, 3, 4):
        s, a = post(f"/effect/a1/{n}", f"a1/r1/{2 * n}", conn=c)
    c.close()
    check("kept-alive connection: three more effects", s == 200 and a == {"applied": True}, f"{s} {a}")
    s, a = post("/effect/a2/1")
    s, a = post("/effect/a2/1")
    check("no Idempotency-Key: applied every time", s == 200 and a == {"applied": True}, f"{s} {a}")
    # the same logical effect under a second key (a node that changed the key after a crash)
    post("/effect/a1/4", "a1/r1/99")
    post("/effect/a1/3", "a1/r1/6", body=b'{"a":2}')     # re-delivery with another body
    post("/effect/a1/2", "a1/r1/2")                       # re-delivery of a key to another path
    # many threads delivering one key at once: applied once
    threads = [threading.Thread(target=post, args=("/effect/a3/1", "a3/r1/2")) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    s, st = get("/stats")
    check("GET /stats: 200", s == 200, str(s))
    check("deliveries counted", st["deliveries"] == 26, st["deliveries"])
    check("applied counted", st["applied"] == 8, st["applied"])
    check("unkeyed counted", st["unkeyed"] == 2, st["unkeyed"])
    check("16 racing deliveries of one key: applied once", st["effects"].get("/effect/a3/1") == 1,
          st["effects"].get("/effect/a3/1"))
    check("redelivered keys: a1/r1/2 (3 times), a1/r1/6 (2), a3/r1/2 (16)",
          st["redelivered"] == {"a1/r1/2": 3, "a1/r1/6": 2, "a3/r1/2": 16}, st["redelivered"])
    check("redelivered_keys and redeliveries", st["redelivered_keys"] == 3 and st["redeliveries"] == 18,
          f"{st['redelivered_keys']} {st['redeliveries']}")
    check("duplicated effects: the unkeyed one and the one under two keys",
          st["duplicated"] == {"/effect/a2/1": 2, "/effect/a1/4": 2} and st["duplicated_effects"] == 2,
          st["duplicated"])
    check("a key re-delivered to another path is reported", st["keys_moved"] == ["a1/r1/2"], st["keys_moved"])
    check("a key re-delivered with another body is reported", st["bodies_changed"] == ["a1/r1/6"],
          st["bodies_changed"])
    s, a = get("/effect/a1/1")
    check("GET on an effect: 405", s == 405, str(s))
    s, a = post("/nothing", "k")
    check("POST elsewhere: 404, not counted", s == 404 and get("/stats")[1]["deliveries"] == 26, str(s))
    # a chunked body
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request("POST", "/effect/a4/1", body=iter([b'{"x":', b'1}']),
              headers={"Idempotency-Key": "a4/r1/2", "Transfer-Encoding": "chunked"}, encode_chunked=True)
    r = c.getresponse()
    data = json.loads(r.read())
    c.close()
    check("a chunked body: applied", r.status == 200 and data == {"applied": True}, f"{r.status} {data}")
    # --ignore-key: the same key twice is applied twice
    STATS = Stats(ignore_key=True)
    post("/effect/b1/1", "b1/r1/2")
    s, a = post("/effect/b1/1", "b1/r1/2")
    st = get("/stats")[1]
    check("--ignore-key: a key delivered twice is applied twice (a duplicate)",
          a == {"applied": True} and st["duplicated"] == {"/effect/b1/1": 2} and st["redelivered_keys"] == 1, st)
    server.shutdown()
    server.server_close()
    print(f"chaos_receiver self-test: {'FAILED' if failures else 'ok'}")
    return 1 if failures else 0


def main(argv):
    global STATS
    args = argv[1:]
    if args == ["--self-test"]:
        return self_test()
    port, ignore_key = 0, False
    while args:
        if args[0] == "--port" and len(args) > 1 and args[1].isdigit():
            port, args = int(args[1]), args[2:]
        elif args[0] == "--ignore-key":
            ignore_key, args = True, args[1:]
        else:
            print("usage: chaos_receiver.py [--port N] [--ignore-key] | --self-test", file=sys.stderr)
            return 2
    STATS = Stats(ignore_key)
    return serve(port)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
