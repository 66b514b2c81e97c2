// The OpenAI Agents SDK bindings, with the real @openai/agents package and no
// network: a scripted Model drives the SDK's own Runner through a gated
// outbound tool, so the SDK itself runs the guardrail and hands the gate's
// answer to the model. With a real ampoule (AMPOULE, a kernel): the real
// gate decides, and, when the binary has `ampoule mcp`, the SDK's
// MCPServerStdio and MCPServerStreamableHttp run run_python and reach
// gate_submit.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { after, describe, test } from 'node:test';

import {
  Agent,
  MCPServerStdio,
  MCPServerStreamableHttp,
  RunContext,
  Runner,
  Usage,
  setTracingDisabled,
} from '@openai/agents';
import type { Model, ModelRequest, ModelResponse } from '@openai/agents';

import { GateGuard, cliGate, evidenceFromRun } from '../src/gate.js';
import type { Gate } from '../src/gate.js';
import {
  ampouleHttpServer,
  ampouleStdioServer,
  gateInputGuardrail,
  gateNeedsApproval,
  gatedTool,
  serverGate,
} from '../src/openai.js';
import { ORDERS_CSV, REFUND_PY, freshKey, realFixture, refundMapper, scriptedGate } from './fixture.js';

setTracingDisabled(true);

const EVIDENCE = { receipt: { payloadType: 'x' }, code: 'print(1)', output: '{}' };

/** A model that first calls issue_refund with `args`, then answers with the tool's output. */
class ScriptedModel implements Model {
  toolOutputs: string[] = [];
  constructor(private readonly args: Record<string, unknown>) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const input = Array.isArray(request.input) ? request.input : [];
    const outputs = input.filter((i) => (i as { type?: string }).type === 'function_call_result');
    if (outputs.length === 0) {
      return {
        usage: new Usage(),
        output: [
          {
            type: 'function_call',
            callId: 'call_refund_1',
            name: 'issue_refund',
            arguments: JSON.stringify(this.args),
            status: 'completed',
          },
        ],
      };
    }
    for (const o of outputs) {
      const out = (o as { output?: unknown }).output;
      // The SDK hands text outputs back as {type: 'text', text}.
      const text = (out as { text?: unknown } | undefined)?.text;
      this.toolOutputs.push(typeof out === 'string' ? out : typeof text === 'string' ? text : JSON.stringify(out));
    }
    return {
      usage: new Usage(),
      output: [
        {
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: `tool said: ${this.toolOutputs.join(' | ')}` }],
        },
      ],
    };
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('not used');
  }
}

const REFUND_PARAMS: {
  type: 'object';
  properties: Record<string, { type: 'string' }>;
  required: string[];
  additionalProperties: true;
} = {
  type: 'object',
  properties: { amount: { type: 'string' }, recipient: { type: 'string' }, key: { type: 'string' } },
  required: ['amount', 'recipient', 'key'],
  additionalProperties: true,
};

/** Runs an agent whose model calls the gated issue_refund tool once; returns what executed and what the model saw. */
async function runRefund(gate: Gate, evidence: typeof EVIDENCE | import('../src/gate.js').Evidence, args: Record<string, unknown>) {
  const executed: unknown[] = [];
  const guard = new GateGuard({ gate, action: refundMapper(evidence) });
  const issueRefund = gatedTool(
    {
      name: 'issue_refund',
      description: 'Refund a customer',
      parameters: REFUND_PARAMS,
      strict: false,
      execute: async (input: unknown) => {
        executed.push(input);
        return 'refund issued';
      },
    },
    guard,
  );
  const model = new ScriptedModel(args);
  const agent = new Agent({ name: 'refunds', instructions: 'Refund when the numbers check out.', model, tools: [issueRefund] });
  const result = await new Runner({ tracingDisabled: true }).run(agent, 'refund order A-1');
  return { executed, toolOutputs: model.toolOutputs, finalOutput: String(result.finalOutput) };
}

describe('OpenAI Agents SDK: the MCP server objects', () => {
  test('stdio: an MCPServerStdio that starts ampoule mcp with the key, kernel and policy', () => {
    const s = ampouleStdioServer({ ampoule: '/opt/ampoule', key: 'agent.key', kernel: 'k.kernel', policy: 'policy.json' });
    assert.ok(s instanceof MCPServerStdio);
    assert.equal(s.name, 'ampoule');
  });
  test('stdio: a missing key is refused before anything starts', () => {
    assert.throws(() => ampouleStdioServer({ key: '' }), /ampoule keygen/);
  });
  test('http: an MCPServerStreamableHttp for the endpoint', () => {
    const s = ampouleHttpServer({ url: 'http://127.0.0.1:8765/mcp', name: 'sealed' });
    assert.ok(s instanceof MCPServerStreamableHttp);
    assert.equal(s.name, 'sealed');
  });
});

describe('OpenAI Agents SDK: the gate through the Runner (scripted gate)', () => {
  test('send: the tool runs', async () => {
    const r = await runRefund(scriptedGate('send'), EVIDENCE, { amount: '12.50', recipient: 'ana', key: 'k1' });
    assert.equal(r.executed.length, 1);
    assert.deepEqual(r.toolOutputs, ['refund issued']);
  });
  for (const d of ['hold', 'refuse', 'escalate'] as const) {
    test(`${d}: the tool does not run and the model gets the reasons`, async () => {
      const r = await runRefund(scriptedGate(d, [`because ${d}`]), EVIDENCE, { amount: '99', recipient: 'ana', key: 'k1' });
      assert.equal(r.executed.length, 0);
      assert.equal(r.toolOutputs.length, 1);
      assert.match(r.toolOutputs[0], new RegExp(`ampoule gate: ${d.toUpperCase()}.*because ${d}`));
    });
  }
  test('needsApproval: false on send, true otherwise, the reasons kept per call id', async () => {
    const agent = new Agent({ name: 'a' });
    const ctx = new RunContext();
    const send = new GateGuard({ gate: scriptedGate('send'), action: refundMapper(EVIDENCE) });
    const hold = new GateGuard({ gate: scriptedGate('hold', ['amount differs']), action: refundMapper(EVIDENCE) });
    const input = { amount: '1', recipient: 'ana', key: 'k' };
    assert.equal(await gateNeedsApproval(send, 'issue_refund')(ctx, input, 'c1'), false);
    assert.equal(await gateNeedsApproval(hold, 'issue_refund')(ctx, input, 'c1'), true);
    assert.match((await hold.verdictFor('c1'))!.message, /HOLD.*amount differs/);
    // The guardrail on its own, as the SDK calls it.
    const g = gateInputGuardrail(hold);
    const out = await g.run({
      context: ctx,
      agent,
      toolCall: { type: 'function_call', callId: 'c2', name: 'issue_refund', arguments: JSON.stringify(input) },
    });
    assert.equal(out.behavior.type, 'rejectContent');
  });
});

describe('OpenAI Agents SDK with the real ampoule', () => {
  const fx = realFixture();
  const skip = typeof fx === 'string' ? `skipped: ${fx}` : false;
  const children: ChildProcess[] = [];
  after(() => {
    for (const c of children) c.kill('SIGTERM');
  });

  test('the real gate: send runs the tool, a wrong amount is held, an untrusted receipt is refused', { skip }, async () => {
    if (typeof fx === 'string') return;
    const gate = cliGate({ ampoule: fx.ampoule, policy: fx.policy, kernel: fx.kernel });
    const ok = await runRefund(gate, fx.evidence, { amount: '12.50', recipient: 'ana', key: freshKey('openai') });
    assert.equal(ok.executed.length, 1, ok.toolOutputs.join());
    const held = await runRefund(gate, fx.evidence, { amount: '120.50', recipient: 'ana', key: freshKey('openai') });
    assert.equal(held.executed.length, 0);
    assert.match(held.toolOutputs[0], /ampoule gate: HOLD/);
    const refused = await runRefund(gate, fx.untrusted, { amount: '12.50', recipient: 'ana', key: freshKey('openai') });
    assert.equal(refused.executed.length, 0);
    assert.match(refused.toolOutputs[0], /ampoule gate: REFUSE/);
  });

  const noMcp = skip || (typeof fx !== 'string' && !fx.hasMcp ? 'skipped: this ampoule has no mcp command' : false);

  test('MCPServerStdio: run_python, then gate_submit with its receipt', { skip: noMcp }, async () => {
    if (typeof fx === 'string') return;
    const server = ampouleStdioServer({ ampoule: fx.ampoule, key: fx.key, kernel: fx.kernel, policy: fx.policy });
    await server.connect();
    try {
      const tools = (await server.listTools()).map((t) => t.name);
      for (const name of ['run_python', 'run_javascript', 'run_wasm', 'verify_receipt', 'gate_submit']) {
        assert.ok(tools.includes(name), `${name} in ${tools.join(',')}`);
      }
      const args = { code: REFUND_PY, inputs: { 'orders.csv': ORDERS_CSV } };
      const res = await server.callToolResult('run_python', args);
      assert.ok(!res.isError, JSON.stringify(res).slice(0, 500));
      const sc = res.structuredContent as Record<string, unknown>;
      assert.equal(sc.stdout, '{"order": "A-1", "refund": "12.50", "customer": "ana"}\n');
      const guard = new GateGuard({ gate: serverGate(server), action: refundMapper(evidenceFromRun(args, sc)) });
      const send = await guard.check('issue_refund', { amount: '12.50', recipient: 'ana', key: freshKey('mcp') });
      assert.equal(send.decision?.decision, 'send', send.message);
      const hold = await guard.check('issue_refund', { amount: '12.51', recipient: 'ana', key: freshKey('mcp') });
      assert.equal(hold.decision?.decision, 'hold', hold.message);
    } finally {
      await server.close();
    }
  });

  test('MCPServerStreamableHttp: list tools and run_python over HTTP', { skip: noMcp }, async () => {
    if (typeof fx === 'string') return;
    const child = spawn(fx.ampoule, ['mcp', '--key', fx.key, '--kernel', fx.kernel, '--http', '127.0.0.1:0'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child);
    const url = await new Promise<string>((resolve, reject) => {
      let err = '';
      child.stderr!.setEncoding('utf8').on('data', (d: string) => {
        err += d;
        const m = /listening on (http:\/\/\S+\/mcp)/.exec(err);
        if (m) resolve(m[1]);
      });
      child.on('exit', (code) => reject(new Error(`ampoule mcp --http exited ${code}: ${err}`)));
    });
    const server = ampouleHttpServer({ url });
    await server.connect();
    try {
      const tools = (await server.listTools()).map((t) => t.name);
      assert.ok(tools.includes('run_python'));
      const res = await server.callToolResult('run_python', { code: 'print(6 * 7)' });
      assert.equal((res.structuredContent as Record<string, unknown>).stdout, '42\n');
    } finally {
      await server.close();
      child.kill('SIGTERM');
    }
  });
});
