// `ampoule mcp --http` against bad requests, with raw fetch: each gets the
// answer the Streamable HTTP transport and JSON-RPC prescribe, and after
// each the server still serves the session (a ping answers). One server for
// the whole file.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { KERNEL, missing, startHttp, workDir } from './lib.mjs';

const skip = missing() ? `skipped: ${missing()}` : false;
const PROTOCOL = '2025-11-25';

describe('Streamable HTTP: bad input', { skip }, () => {
  let server;
  let session;
  let nextId = 1;

  function post(body, { headers = {}, sessionId = session } = {}) {
    const h = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
    if (sessionId) h['Mcp-Session-Id'] = sessionId;
    if (sessionId) h['MCP-Protocol-Version'] = PROTOCOL;
    Object.assign(h, headers);
    for (const [k, v] of Object.entries(h)) if (v === null) delete h[k];
    return fetch(server.url, { method: 'POST', headers: h, body: typeof body === 'string' ? body : JSON.stringify(body) });
  }

  // The JSON-RPC message in a response, whether sent as JSON or as one SSE event.
  async function message(res) {
    const text = await res.text();
    if ((res.headers.get('content-type') ?? '').includes('text/event-stream')) {
      const data = text
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim())
        .join('');
      return JSON.parse(data);
    }
    return JSON.parse(text);
  }

  async function stillServing() {
    const id = nextId++;
    const res = await post({ jsonrpc: '2.0', id, method: 'ping' });
    assert.equal(res.status, 200);
    const m = await message(res);
    assert.deepEqual([m.id, m.result], [id, {}]);
  }

  before(async () => {
    const work = workDir();
    server = await startHttp(['--key', work.key, '--kernel', KERNEL]);
    const res = await post(
      {
        jsonrpc: '2.0',
        id: nextId++,
        method: 'initialize',
        params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'bad-input', version: '1' } },
      },
      { sessionId: null },
    );
    assert.equal(res.status, 200);
    session = res.headers.get('mcp-session-id');
    assert.ok(session, 'initialize returns Mcp-Session-Id');
    const init = await message(res);
    assert.equal(init.result.protocolVersion, PROTOCOL);
    const note = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    assert.equal(note.status, 202);
  });
  after(() => server?.child.kill('SIGTERM'));

  test('malformed JSON: 400 with a parse error (-32700, id null)', async () => {
    const res = await post('{"jsonrpc": "2.0", "id": 1, "method": "ping"');
    assert.equal(res.status, 400);
    const m = await res.json();
    assert.equal(m.error?.code, -32700);
    assert.equal(m.id, null);
    await stillServing();
  });

  test('not a JSON-RPC request: invalid request (-32600)', async () => {
    const res = await post({ jsonrpc: '1.0', id: 5, method: 42 });
    assert.equal(res.status, 400);
    assert.equal((await res.json()).error?.code, -32600);
    await stillServing();
  });

  test('unknown method: method not found (-32601) for that id', async () => {
    const id = nextId++;
    const res = await post({ jsonrpc: '2.0', id, method: 'no/such/method', params: {} });
    assert.equal(res.status, 200);
    const m = await message(res);
    assert.deepEqual([m.id, m.error?.code], [id, -32601]);
    await stillServing();
  });

  test('unknown tool: an error, not a crash', async () => {
    const id = nextId++;
    const res = await post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } });
    assert.equal(res.status, 200);
    const m = await message(res);
    assert.equal(m.id, id);
    assert.ok(m.error?.code === -32602 || m.result?.isError === true, JSON.stringify(m));
    await stillServing();
  });

  test('arguments that break the input schema: invalid params or a tool error', async () => {
    const id = nextId++;
    const res = await post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'run_python', arguments: { code: 7 } } });
    const m = await message(res);
    assert.equal(m.id, id);
    assert.ok(m.error?.code === -32602 || m.result?.isError === true, JSON.stringify(m));
    await stillServing();
  });

  test('wrong Content-Type: 415', async () => {
    const res = await post(JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'ping' }), { headers: { 'Content-Type': 'text/plain' } });
    assert.equal(res.status, 415);
    await stillServing();
  });

  test('Accept without application/json and text/event-stream: 406', async () => {
    const res = await post({ jsonrpc: '2.0', id: nextId++, method: 'ping' }, { headers: { Accept: 'text/html' } });
    assert.equal(res.status, 406);
    await stillServing();
  });

  test('missing session id on a request after initialize: 400', async () => {
    const res = await post({ jsonrpc: '2.0', id: nextId++, method: 'tools/list' }, { sessionId: null });
    assert.equal(res.status, 400);
    await stillServing();
  });

  test('unknown session id: 404', async () => {
    const res = await post({ jsonrpc: '2.0', id: nextId++, method: 'tools/list' }, { sessionId: 'no-such-session' });
    assert.equal(res.status, 404);
    await stillServing();
  });

  test('unsupported MCP-Protocol-Version: 400', async () => {
    const res = await post({ jsonrpc: '2.0', id: nextId++, method: 'ping' }, { headers: { 'MCP-Protocol-Version': '1999-01-01' } });
    assert.equal(res.status, 400);
    await stillServing();
  });

  test('a foreign Origin: 403 (DNS rebinding)', async () => {
    const res = await post({ jsonrpc: '2.0', id: nextId++, method: 'ping' }, { headers: { Origin: 'http://evil.example' } });
    assert.equal(res.status, 403);
    await stillServing();
  });

  test('a message over the size limit (65 MiB): 413, then the server still serves', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'ping', params: { pad: 'x'.repeat(65 << 20) } });
    let status;
    try {
      status = (await post(big)).status;
    } catch {
      // The server may close the connection after refusing the body; that is an answer too.
      status = 'closed';
    }
    assert.ok(status === 413 || status === 'closed', `status ${status}`);
    await stillServing();
  });

  test('deeply nested JSON: 400, not a stack overflow', async () => {
    const res = await post('['.repeat(100000) + ']'.repeat(100000));
    assert.equal(res.status, 400);
    await stillServing();
  });

  test('DELETE ends the session; it is then unknown (404)', async () => {
    const del = await fetch(server.url, { method: 'DELETE', headers: { 'Mcp-Session-Id': session, 'MCP-Protocol-Version': PROTOCOL } });
    assert.ok(del.status === 200 || del.status === 204, `DELETE ${del.status}`);
    const res = await post({ jsonrpc: '2.0', id: nextId++, method: 'ping' });
    assert.equal(res.status, 404);
  });
});
