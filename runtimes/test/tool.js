// Checks the global `volent`, the API of a Volent tool written in JavaScript,
// run as a tool is run (scripts/build-runtimes.sh, check_tool): the arguments
// {"n": 21} on stdin, HTTP answered by run-wasi.mjs's fake
// (http://fake.test/echo answers with the request's own JSON text). Writes one
// line per check to stderr and, when every check passes, the result
// {"answer":42} to stdout; exits 1 otherwise.
import * as std from 'std';

const ECHO = 'http://fake.test/echo';
const results = [];

function check(name, fn) {
  try {
    fn();
    results.push([name, null]);
  } catch (e) {
    results.push([name, String(e)]);
  }
}

function assert(cond, what) {
  if (!cond) throw new Error('assertion failed: ' + what);
}

// The request the fake echoed back, as JSON text with sorted keys.
function sent(response) {
  assert(response.status === 200, 'status ' + response.status);
  assert(JSON.stringify(response.headers) === '[["content-type","application/json"]]', 'headers');
  return canonical(JSON.parse(response.body));
}

function canonical(value) {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const keys = Object.keys(value).sort();
  return '{' + keys.map((k) => JSON.stringify(k) + ':' + canonical(value[k])).join(',') + '}';
}

check('arguments', () => {
  const args = volent.arguments();
  assert(JSON.stringify(args) === '{"n":21}', JSON.stringify(args));
  assert(volent.arguments() === args, 'stdin is read once');
});
check('request_json_body', () => {
  const r = volent.httpRequest({ method: 'POST', url: ECHO, headers: { 'X-Test': 1 }, body: { n: 21 } });
  assert(sent(r) === canonical({ method: 'POST', url: ECHO, body: '{"n":21}',
                                 headers: { 'X-Test': '1', 'Content-Type': 'application/json' } }), sent(r));
});
check('request_text_body', () => {
  const r = volent.httpRequest({ method: 'PUT', url: ECHO, headers: { 'content-type': 'text/plain' },
                                 body: new TextEncoder().encode('h\u00e9') });
  assert(sent(r) === canonical({ method: 'PUT', url: ECHO, headers: { 'content-type': 'text/plain' },
                                 body: 'h\u00e9' }), sent(r));
  assert(sent(volent.httpRequest({ url: ECHO })) === canonical({ method: 'GET', url: ECHO }), 'GET by default');
});
check('body_not_utf8', () => {
  try {
    volent.httpRequest({ method: 'POST', url: ECHO, body: new Uint8Array([0xff]) });
  } catch (e) {
    assert(e instanceof TypeError, String(e));
    return;
  }
  throw new Error('a body that is not UTF-8 was sent');
});
check('response_not_utf8', () => {
  const r = volent.httpRequest({ url: 'http://fake.test/bytes' });
  assert(r.status === 200 && r.body instanceof Uint8Array && r.body.join() === '0,255,254,65', String(r.body));
});
check('error_answer', () => {
  try {
    volent.httpRequest({ url: 'https://example.org/' });
  } catch (e) {
    assert(e instanceof volent.HttpError && e instanceof Error, 'class');
    assert(e.name === 'VolentHttpError' && e.kind === 'unavailable' && e.reason, `${e.name} ${e.kind} ${e.reason}`);
    assert(String(e) === `VolentHttpError: unavailable: ${e.reason}`, String(e));
    return;
  }
  throw new Error('no VolentHttpError');
});
check('respond_refuses_undefined', () => {
  try {
    volent.respond(undefined);
  } catch (e) {
    assert(e instanceof TypeError, String(e));
    return;
  }
  throw new Error('respond(undefined) printed something');
});

const failed = results.filter((r) => r[1] !== null);
for (const [name, err] of results) std.err.puts((err === null ? 'ok   ' : 'FAIL ') + name + (err ? ': ' + err : '') + '\n');
std.err.puts(`js tool: ${results.length - failed.length} passed, ${failed.length} failed\n`);
if (failed.length) std.exit(1);
volent.respond({ answer: volent.arguments().n * 2 });
