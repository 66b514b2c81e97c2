# Checks volent_tool, the API of a Volent tool written in Python, run as a tool
# is run (scripts/build-runtimes.sh, check_tool): the arguments {"n": 21} on
# stdin, HTTP answered by run-wasi.mjs's fake (http://fake.test/echo answers
# with the request's own JSON text). Writes one line per check to stderr and,
# when every check passes, the result {"answer": 42} to stdout; exits 1 otherwise.
import json
import sys

import volent_tool

ECHO = "http://fake.test/echo"
results = []


def check(name, fn):
    try:
        fn()
        results.append((name, None))
    except Exception as exc:  # report every failure, keep going
        results.append((name, f"{type(exc).__name__}: {exc}"))


def sent(response):
    """The request the fake echoed back."""
    assert response["status"] == 200, response
    assert response["headers"] == [["content-type", "application/json"]], response
    return json.loads(response["body"])


def t_arguments():
    args = volent_tool.arguments()
    assert args == {"n": 21}, args
    assert volent_tool.arguments() is args, "stdin is read once"


def t_request_json_body():
    r = volent_tool.http_request("POST", ECHO, headers={"X-Test": 1}, body={"n": 21})
    assert sent(r) == {"method": "POST", "url": ECHO, "body": '{"n": 21}',
                       "headers": {"X-Test": "1", "Content-Type": "application/json"}}, r


def t_request_text_body():
    r = volent_tool.http_request("PUT", ECHO, headers={"content-type": "text/plain"}, body="h\u00e9".encode())
    assert sent(r) == {"method": "PUT", "url": ECHO, "headers": {"content-type": "text/plain"},
                       "body": "h\u00e9"}, r
    assert sent(volent_tool.http_request("GET", ECHO)) == {"method": "GET", "url": ECHO}


def t_body_not_utf8():
    try:
        volent_tool.http_request("POST", ECHO, body=b"\xff")
    except ValueError:
        return
    raise AssertionError("a body that is not UTF-8 was sent")


def t_response_not_utf8():
    r = volent_tool.http_request("GET", "http://fake.test/bytes")
    assert r["status"] == 200 and r["body"] == b"\x00\xff\xfeA", r


def t_error_answer():
    try:
        volent_tool.http_request("GET", "https://example.org/")
    except volent_tool.HttpError as exc:
        assert isinstance(exc, OSError), type(exc).__mro__
        assert exc.kind == "unavailable" and exc.reason, (exc.kind, exc.reason)
        assert str(exc) == f"unavailable: {exc.reason}", str(exc)
        return
    raise AssertionError("no HttpError")


for name, fn in list(globals().items()):
    if name.startswith("t_"):
        check(name[2:], fn)

failed = [r for r in results if r[1]]
for name, err in results:
    print(f"{'ok  ' if err is None else 'FAIL'} {name}{'' if err is None else ': ' + err}", file=sys.stderr)
print(f"python tool: {len(results) - len(failed)} passed, {len(failed)} failed", file=sys.stderr)
if failed:
    sys.exit(1)
volent_tool.respond({"answer": volent_tool.arguments()["n"] * 2})
