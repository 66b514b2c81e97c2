// The Claude Agent SDK bindings, with the real @anthropic-ai/claude-agent-sdk
// package: the mcpServers entries and a canUseTool callback typed as the
// SDK's own Options, and the callback's answers with a scripted gate and
// with the real `ampoule gate submit` on real receipts. No network: the
// callback is called the way the SDK calls it, without a model session.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import * as sdk from '@anthropic-ai/claude-agent-sdk';
import type { Options, PermissionResult } from '@anthropic-ai/claude-agent-sdk';

import { GateGuard, cliGate } from '../src/gate.js';
import { ampouleHttpMcpServers, ampouleMcpServers, gateCanUseTool, mcpToolName } from '../src/claude.js';
import { freshKey, realFixture, refundMapper, scriptedGate } from './fixture.js';

const EVIDENCE = { receipt: { payloadType: 'x' }, code: 'print(1)', output: '{}' };

function ctx(id: string) {
  return { signal: new AbortController().signal, toolUseID: id, requestId: `req-${id}` };
}

async function ask(guard: GateGuard, tool: string, input: Record<string, unknown>, id = 'toolu_1'): Promise<PermissionResult> {
  const r = await gateCanUseTool(guard)(tool, input, ctx(id));
  assert.ok(r, 'canUseTool answered');
  return r;
}

describe('Claude Agent SDK: configuration', () => {
  test('the SDK loads and the options type-check as its own Options', () => {
    assert.equal(typeof sdk.query, 'function');
    const guard = new GateGuard({ gate: scriptedGate('send'), action: refundMapper(EVIDENCE) });
    const options: Options = {
      mcpServers: ampouleMcpServers({ ampoule: '/usr/local/bin/ampoule', key: 'agent.key', policy: 'policy.json' }),
      allowedTools: [mcpToolName('run_python'), mcpToolName('verify_receipt')],
      canUseTool: gateCanUseTool(guard),
    };
    assert.deepEqual(options.mcpServers, {
      ampoule: { type: 'stdio', command: '/usr/local/bin/ampoule', args: ['mcp', '--key', 'agent.key', '--policy', 'policy.json'] },
    });
    assert.deepEqual(options.allowedTools, ['mcp__ampoule__run_python', 'mcp__ampoule__verify_receipt']);
  });
  test('http entry', () => {
    const options: Options = { mcpServers: ampouleHttpMcpServers('http://127.0.0.1:8765/mcp') };
    assert.deepEqual(options.mcpServers, { ampoule: { type: 'http', url: 'http://127.0.0.1:8765/mcp' } });
  });
});

describe('Claude Agent SDK: canUseTool with a scripted gate', () => {
  const input = { amount: '12.50', recipient: 'ana', key: 'k' };
  test('send: allow, input unchanged', async () => {
    const r = await ask(new GateGuard({ gate: scriptedGate('send'), action: refundMapper(EVIDENCE) }), 'issue_refund', input);
    assert.deepEqual(r, { behavior: 'allow', updatedInput: input });
  });
  for (const d of ['hold', 'escalate', 'refuse'] as const) {
    test(`${d}: deny with the reasons`, async () => {
      const guard = new GateGuard({ gate: scriptedGate(d, [`reason for ${d}`]), action: refundMapper(EVIDENCE) });
      const r = await ask(guard, 'issue_refund', input);
      assert.equal(r.behavior, 'deny');
      assert.match((r as { message: string }).message, new RegExp(`${d.toUpperCase()}.*reason for ${d}`));
    });
  }
  test('other tools go to the fallback, or are allowed', async () => {
    const gate = scriptedGate('refuse');
    const guard = new GateGuard({ gate, action: refundMapper(EVIDENCE) });
    const r = await ask(guard, mcpToolName('run_python'), { code: 'print(1)' });
    assert.equal(r.behavior, 'allow');
    const denied = await gateCanUseTool(guard, {
      fallback: async () => ({ behavior: 'deny', message: 'not on the list' }),
    })('Bash', { command: 'ls' }, ctx('toolu_2'));
    assert.deepEqual(denied, { behavior: 'deny', message: 'not on the list' });
    assert.equal(gate.calls.length, 0);
  });
});

describe('Claude Agent SDK: canUseTool with the real gate', () => {
  const fx = realFixture();
  const skip = typeof fx === 'string' ? `skipped: ${fx}` : false;

  test('send is allowed; a held amount, a duplicate and an untrusted receipt are denied', { skip }, async () => {
    if (typeof fx === 'string') return;
    const gate = cliGate({ ampoule: fx.ampoule, policy: fx.policy, kernel: fx.kernel });
    const guard = new GateGuard({ gate, action: refundMapper(fx.evidence) });
    const key = freshKey('claude');
    const send = await ask(guard, 'mcp__payments__issue_refund', { amount: '12.50', recipient: 'ana', key }, 'toolu_a');
    assert.equal(send.behavior, 'allow', JSON.stringify(send));
    const dup = await ask(guard, 'mcp__payments__issue_refund', { amount: '12.50', recipient: 'ana', key }, 'toolu_b');
    assert.equal(dup.behavior, 'deny');
    assert.match((dup as { message: string }).message, /ESCALATE/);
    const hold = await ask(guard, 'mcp__payments__issue_refund', { amount: '1250', recipient: 'ana', key: freshKey('claude') }, 'toolu_c');
    assert.equal(hold.behavior, 'deny');
    assert.match((hold as { message: string }).message, /HOLD/);
    const untrusted = new GateGuard({ gate, action: refundMapper(fx.untrusted) });
    const refuse = await ask(untrusted, 'mcp__payments__issue_refund', { amount: '12.50', recipient: 'ana', key: freshKey('claude') });
    assert.equal(refuse.behavior, 'deny');
    assert.match((refuse as { message: string }).message, /REFUSE/);
  });
});
