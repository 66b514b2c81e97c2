#!/usr/bin/env python3
"""1,600 chat completions held in flight at once against `volent mock-model`,
for tests/volent/mock_model.sh (curl runs at most 300 in parallel).

    mock_model_flood.py HOST:PORT

Prints one JSON object: ok (answers 200 with the mock's plain answer),
all_sent_first (every request was sent before the first answer came) and
errors (the kinds of exception seen).
"""
import asyncio, json, sys
host, port = sys.argv[1].rsplit(":", 1)
N = 1600
body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
head = (f"POST /v1/chat/completions HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer k\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode()
sent = 0
first_answer_after = None  # how many had been sent when the first answer came

async def one():
    global sent, first_answer_after
    r, w = await asyncio.open_connection(host, int(port))
    w.write(head + body)
    await w.drain()
    sent += 1
    data = await r.read()
    if first_answer_after is None:
        first_answer_after = sent
    w.close()
    return data.startswith(b"HTTP/1.1 200") and b'"done: 0 tool call(s)"' in data

async def main():
    results = await asyncio.gather(*(one() for _ in range(N)), return_exceptions=True)
    ok = sum(1 for x in results if x is True)
    errors = sorted({type(x).__name__ for x in results if isinstance(x, Exception)})
    print(json.dumps({"ok": ok, "all_sent_first": first_answer_after == N, "errors": errors}))

asyncio.run(main())
