"""HTTP requests for the tests: http.client for ordinary ones, a raw socket
where a test needs exact bytes on the wire."""
import http.client
import json
import re
import socket

# Bearer tokens by port: a node the harness started (servers.py) registers
# its bootstrap admin token here, and every request to its port carries it
# unless the caller names its own Authorization (None: send none).
_TOKENS = {}


def register_token(port, token):
    """Requests to `port` carry `token` from now on (None: no more)."""
    if token:
        _TOKENS[port] = token
    else:
        _TOKENS.pop(port, None)


def token_for(port):
    """The token registered for `port`, or None."""
    return _TOKENS.get(port)


def auth_line(port):
    """The Authorization header line (with CRLF) for raw requests to `port`,
    as bytes; b"" when none is registered."""
    tok = _TOKENS.get(port)
    return f"Authorization: Bearer {tok}\r\n".encode() if tok else b""


def request(host, port, method, path, body=None, headers=None, conn=None, timeout=20):
    """One request; (status, headers with lower-case names, body bytes).

    A dict or list body is sent as JSON (Content-Type application/json unless
    `headers` names one). `conn` reuses a keep-alive connection, which stays
    open. Raises OSError or http.client.HTTPException when no answer comes.
    """
    headers = dict(headers or {})
    if not any(k.lower() == "authorization" for k in headers) and port in _TOKENS:
        headers["Authorization"] = f"Bearer {_TOKENS[port]}"
    headers = {k: v for k, v in headers.items() if v is not None}
    if isinstance(body, (dict, list)):
        body = json.dumps(body)
        if not any(k.lower() == "content-type" for k in headers):
            headers["Content-Type"] = "application/json"
    if isinstance(body, str):
        body = body.encode()
    c = conn or http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        c.request(method, path, body=body, headers=headers)
        r = c.getresponse()
        payload = r.read()
    except (OSError, http.client.HTTPException):
        c.close()
        raise
    if conn is None:
        c.close()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, payload


def json_body(payload):
    """The parsed JSON of `payload`, or None if it is not JSON."""
    try:
        return json.loads(payload)
    except (ValueError, TypeError, RecursionError):  # RecursionError: nesting deeper than the parser goes
        return None


def api(port, method, path, body=None, ctype=None):
    """A control API call to a node on 127.0.0.1:`port`: (status, the body
    parsed as JSON, else its bytes; None when empty). `ctype` names the
    body's Content-Type."""
    status, _, data = request("127.0.0.1", port, method, path, body, {"Content-Type": ctype} if ctype else {})
    parsed = json_body(data) if data else None
    return status, parsed if parsed is not None or not data else data


def raw_exchange(host, port, data, shut=True, timeout=10):
    """Sends `data` on a fresh connection, half-closes it if `shut`, and reads
    until the server closes or `timeout` passes; the bytes read."""
    sock = socket.create_connection((host, port), timeout=timeout)
    out = b""
    try:
        sock.sendall(data)
        if shut:
            sock.shutdown(socket.SHUT_WR)
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            out += chunk
    except OSError:  # a timeout or a reset ends the reading: the bytes so far are the answer
        pass
    finally:
        sock.close()
    return out


def raw_status(out):
    """The status code of the first answer in raw bytes, or None."""
    m = re.match(rb"HTTP/1\.[01] (\d{3}) ", out)
    return int(m.group(1)) if m else None
