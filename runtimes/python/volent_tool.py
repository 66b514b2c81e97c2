"""What a Volent tool written in Python needs (docs/tools.md, wit/volent-tool.wit).

    import volent_tool

    args = volent_tool.arguments()                        # the call's arguments
    page = volent_tool.http_request("GET", args["url"])   # through the node's egress gate
    volent_tool.respond({"status": page["status"]})       # the call's result

A tool's one way out is http_request; everything else is a sealed run.
"""
import json
import sys

import _volent_tool  # the two host imports, in ampoule_main.c

__all__ = ["HttpError", "arguments", "http_request", "respond"]

_UNREAD = object()
_arguments = _UNREAD


class HttpError(OSError):
    """An HTTP request that got no response.

    kind is why: "denied" (not granted to this tool), "not-sent" (no
    connection), "failed" (no whole answer), "invalid" (a malformed request),
    "limit" (the call's 16 requests are used up) or "unavailable" (no node is
    answering, as under a plain `ampoule run`); reason says it for a person.
    """

    def __init__(self, kind, reason):
        super().__init__(f"{kind}: {reason}")
        self.kind = kind
        self.reason = reason


def arguments():
    """Returns the call's arguments, the JSON object on stdin (read once, then the same object)."""
    global _arguments
    if _arguments is _UNREAD:
        _arguments = json.load(sys.stdin)
    return _arguments


def http_request(method, url, headers=None, body=None):
    """Sends one HTTP request through the node's egress gate and returns the response.

    headers: a dict of name to value. body: str; bytes (UTF-8 text, else
    ValueError); or a dict or list, sent as JSON with Content-Type
    application/json unless headers name a content type.

    Returns {"status": int, "headers": [[name, value], ...], "body": str},
    with body as bytes when the response is not UTF-8 text. Raises HttpError
    when there is no response; a 4xx or 5xx status is a response.
    """
    headers = {str(k): str(v) for k, v in (headers or {}).items()}
    if isinstance(body, (bytes, bytearray)):
        try:
            body = bytes(body).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"http_request: the body is not UTF-8 text ({exc}); "
                             "a request body must be text") from None
    elif isinstance(body, (dict, list)):
        body = json.dumps(body, allow_nan=False)
        if not any(k.lower() == "content-type" for k in headers):
            headers["Content-Type"] = "application/json"
    elif body is not None and not isinstance(body, str):
        raise TypeError(f"http_request: the body must be str, bytes, dict or list, not {type(body).__name__}")

    request = {"method": method, "url": url}
    if headers:
        request["headers"] = headers
    if body is not None:
        request["body"] = body
    answer = json.loads(_volent_tool.request(json.dumps(request)))
    if "error" in answer:
        raise HttpError(answer["error"], answer.get("reason", ""))
    if "body_base64" in answer:
        import base64
        body = base64.b64decode(answer["body_base64"])
    else:
        body = answer.get("body", "")
    return {"status": answer["status"], "headers": answer.get("headers", []), "body": body}


def respond(value):
    """Writes value to stdout as one line of JSON: the call's result (at most 64 KiB)."""
    print(json.dumps(value, allow_nan=False))
