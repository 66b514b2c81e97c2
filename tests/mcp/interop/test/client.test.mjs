// `ampoule mcp` with the official MCP TypeScript client, over stdio
// (StdioClientTransport spawns the server) and over Streamable HTTP
// (StreamableHTTPClientTransport against `ampoule mcp --http 127.0.0.1:0`):
// initialize, list the tools and their schemas, run_python (the client
// checks structuredContent against the tool's outputSchema), verify the
// returned receipt with the separate ampoule-verify binary (VERIFIED with
// --kernel and --program, then --replay), and verify_receipt with replay
// (REPLAY OK).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { AMPOULE, AMPOULE_VERIFY, KERNEL, missing, runCommand, startHttp, workDir } from './lib.mjs';

const skip = missing() ? `skipped: ${missing()}` : false;
const TOOLS = ['run_python', 'run_javascript', 'run_wasm', 'verify_receipt', 'gate_submit'];

const PROGRAM = `import json
rows = [l.strip().split(",") for l in open("/input/orders.csv") if l.strip()]
print(json.dumps({"orders": len(rows), "total": sum(float(r[1]) for r in rows)}))
`;
const ORDERS = 'A-1,12.50\nA-2,7.25\n';
const EXPECTED = '{"orders": 2, "total": 19.75}\n';

async function connectStdio(work) {
  const transport = new StdioClientTransport({
    command: AMPOULE,
    args: ['mcp', '--key', work.key, '--kernel', KERNEL],
    stderr: 'pipe',
  });
  const client = new Client({ name: 'ampoule-interop', version: '1.0.0' });
  await client.connect(transport);
  return { client, close: () => client.close() };
}

async function connectHttp(work) {
  const server = await startHttp(['--key', work.key, '--kernel', KERNEL]);
  const transport = new StreamableHTTPClientTransport(new URL(server.url));
  const client = new Client({ name: 'ampoule-interop', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    transport,
    close: async () => {
      await transport.terminateSession().catch(() => {});
      await client.close();
      server.child.kill('SIGTERM');
    },
  };
}

for (const [name, connect] of [
  ['stdio', connectStdio],
  ['Streamable HTTP', connectHttp],
]) {
  describe(`official client over ${name}`, { skip }, () => {
    let work;
    let conn;
    let run; // run_python's structuredContent
    before(async () => {
      work = workDir();
      conn = await connect(work);
    });
    after(async () => {
      if (conn) await conn.close();
    });

    test('initialize: server info, tools capability', () => {
      const info = conn.client.getServerVersion();
      assert.equal(info?.name, 'ampoule');
      assert.ok(conn.client.getServerCapabilities()?.tools, 'tools capability');
      if (conn.transport) assert.equal(conn.transport.protocolVersion, '2025-11-25');
    });

    test('tools/list: every tool with an input and an output schema', async () => {
      const { tools } = await conn.client.listTools();
      const names = tools.map((t) => t.name);
      for (const t of TOOLS) assert.ok(names.includes(t), `${t} in ${names.join(', ')}`);
      for (const t of tools) {
        assert.equal(t.inputSchema?.type, 'object', `${t.name} inputSchema`);
        assert.equal(t.outputSchema?.type, 'object', `${t.name} outputSchema`);
        assert.ok(t.description, `${t.name} description`);
      }
      const py = tools.find((t) => t.name === 'run_python');
      assert.deepEqual(py.inputSchema.required, ['code']);
    });

    test('run_python: output, status and a receipt', async () => {
      const res = await conn.client.callTool({ name: 'run_python', arguments: { code: PROGRAM, inputs: { 'orders.csv': ORDERS } } });
      assert.ok(!res.isError, JSON.stringify(res.content));
      run = res.structuredContent;
      assert.equal(run.stdout, EXPECTED);
      assert.equal(run.status, 0);
      assert.equal(run.stop, 'exit');
      assert.equal(typeof run.fuel_used, 'number');
      assert.equal(typeof run.receipt?.payload, 'string', 'a DSSE envelope');
      assert.ok(Array.isArray(run.receipt.signatures) && run.receipt.signatures.length === 1);
    });

    test('the receipt checks out with ampoule-verify (VERIFIED, then REPLAY OK)', async () => {
      assert.ok(run, 'run_python ran');
      const dir = path.join(work.dir, name.replace(/\W/g, ''));
      const { mkdirSync } = await import('node:fs');
      mkdirSync(dir, { recursive: true });
      const files = { receipt: path.join(dir, 'r.json'), program: path.join(dir, 'p.py'), input: path.join(dir, 'orders.csv'), out: path.join(dir, 'out') };
      writeFileSync(files.receipt, JSON.stringify(run.receipt));
      writeFileSync(files.program, PROGRAM);
      writeFileSync(files.input, ORDERS);
      writeFileSync(files.out, run.stdout);
      const common = ['--key', work.pub, '--kernel', KERNEL, '--program', files.program, '--input', `orders.csv=${files.input}`];
      const v = await runCommand(AMPOULE_VERIFY, [files.receipt, ...common, '--output', files.out]);
      assert.equal(v.code, 0, v.stdout + v.stderr);
      assert.equal(v.stdout.trim(), 'VERIFIED');
      const r = await runCommand(AMPOULE_VERIFY, ['--replay', files.receipt, ...common]);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.equal(r.stdout.trim(), 'REPLAY OK');
      // One byte changed in the program: no longer the signed one.
      writeFileSync(files.program, PROGRAM.replace('19', '91') + '#');
      const bad = await runCommand(AMPOULE_VERIFY, [files.receipt, ...common]);
      assert.equal(bad.code, 1, bad.stdout + bad.stderr);
      assert.equal(bad.stdout.trim(), 'FAILED');
    });

    test('verify_receipt with replay: REPLAY OK', async () => {
      assert.ok(run, 'run_python ran');
      const res = await conn.client.callTool({
        name: 'verify_receipt',
        arguments: { receipt: run.receipt, code: PROGRAM, inputs: { 'orders.csv': ORDERS }, output: run.stdout, replay: true },
      });
      assert.ok(!res.isError, JSON.stringify(res.content));
      const v = res.structuredContent;
      assert.equal(v.exit_code, 0, JSON.stringify(v));
      assert.equal(v.result_line, 'REPLAY OK');
      // A receipt text altered by one character is not verified.
      const forged = { ...run.receipt, payload: run.receipt.payload.slice(0, -4) + (run.receipt.payload.endsWith('AAAA') ? 'BBBB' : 'AAAA') };
      const bad = await conn.client.callTool({ name: 'verify_receipt', arguments: { receipt: forged, code: PROGRAM } });
      assert.notEqual(bad.structuredContent?.exit_code ?? 1, 0, JSON.stringify(bad));
    });

    test('run_javascript and a tool failure', async () => {
      const res = await conn.client.callTool({ name: 'run_javascript', arguments: { code: 'console.log(6 * 7)' } });
      assert.equal(res.structuredContent?.stdout, '42\n', JSON.stringify(res.content));
      // gate_submit without --policy: a tool result with isError, not a protocol error.
      const gate = await conn.client.callTool({
        name: 'gate_submit',
        arguments: { draft: {}, receipt: run.receipt, code: PROGRAM, output: run.stdout },
      });
      assert.equal(gate.isError, true);
      assert.match(JSON.stringify(gate.content), /policy/);
    });
  });
}
