// The gate client and the guard: with a scripted gate (every decision, a
// gate that cannot decide, a mapper that throws, one submission per call id)
// and with the real `ampoule gate submit` on real receipts (send, hold,
// refuse, escalate).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { GateError, GateGuard, cliGate, evidenceFromRun, mcpGate } from '../src/gate.js';
import { freshKey, realFixture, refundDraft, refundMapper, scriptedGate } from './fixture.js';

const EVIDENCE = { receipt: { payloadType: 'x' }, code: 'print(1)', output: '{}' };

describe('GateGuard with a scripted gate', () => {
  test('send lets the call through', async () => {
    const guard = new GateGuard({ gate: scriptedGate('send'), action: refundMapper(EVIDENCE) });
    const v = await guard.check('issue_refund', { amount: '12.50', recipient: 'ana', key: 'k' });
    assert.equal(v.allow, true);
    assert.equal(v.gated, true);
    assert.equal(v.decision?.decision, 'send');
  });
  for (const d of ['hold', 'escalate', 'refuse'] as const) {
    test(`${d} blocks the call, with the reasons`, async () => {
      const guard = new GateGuard({ gate: scriptedGate(d, [`${d} reason one`, 'second']), action: refundMapper(EVIDENCE) });
      const v = await guard.check('issue_refund', { amount: '1', recipient: 'x', key: 'k' });
      assert.equal(v.allow, false);
      assert.match(v.message, new RegExp(`^ampoule gate: ${d.toUpperCase()} \\(decision #1\\): ${d} reason one; second$`));
    });
  }
  test('a gate that cannot decide blocks (fail closed)', async () => {
    const guard = new GateGuard({ gate: scriptedGate(new GateError('policy unreadable')), action: refundMapper(EVIDENCE) });
    const v = await guard.check('issue_refund', { key: 'k' });
    assert.equal(v.allow, false);
    assert.match(v.message, /the gate decided nothing: policy unreadable/);
  });
  test('a mapper that throws blocks without asking the gate', async () => {
    const gate = scriptedGate('send');
    const guard = new GateGuard({
      gate,
      action: () => {
        throw new Error('no receipt for this refund');
      },
    });
    const v = await guard.check('issue_refund', {});
    assert.equal(v.allow, false);
    assert.match(v.message, /no receipt for this refund/);
    assert.equal(gate.calls.length, 0);
  });
  test('a call that is not an outbound action passes without asking the gate', async () => {
    const gate = scriptedGate('refuse');
    const guard = new GateGuard({ gate, action: refundMapper(EVIDENCE) });
    const v = await guard.check('mcp__ampoule__run_python', { code: 'print(1)' });
    assert.deepEqual([v.allow, v.gated, gate.calls.length], [true, false, 0]);
  });
  test('one submission per call id', async () => {
    const gate = scriptedGate('send');
    const guard = new GateGuard({ gate, action: refundMapper(EVIDENCE) });
    const input = { amount: '12.50', recipient: 'ana', key: 'k' };
    const [a, b] = await Promise.all([guard.check('issue_refund', input, 'call-1'), guard.check('issue_refund', input, 'call-1')]);
    await guard.check('issue_refund', input, 'call-1');
    assert.equal(gate.calls.length, 1);
    assert.equal(a, b);
    await guard.check('issue_refund', input, 'call-2');
    assert.equal(gate.calls.length, 2);
  });
});

describe('mcpGate and evidenceFromRun', () => {
  test('gate_submit arguments and answers', async () => {
    let seen: { name: string; args: Record<string, unknown> } | undefined;
    const gate = mcpGate(async (name, args) => {
      seen = { name, args };
      return { structuredContent: { decision: 'hold', reasons: ['amount differs'], id: 7, idempotency_key: 'k' } };
    });
    const ev = evidenceFromRun(
      { code: 'print(1)', inputs: { 'a.csv': 'x' }, stdin: 's' },
      { stdout: '{"a":1}\n', receipt: { payloadType: 'p' } },
    );
    const d = await gate.submit({ draft: refundDraft('k'), evidence: ev });
    assert.equal(seen?.name, 'gate_submit');
    assert.deepEqual(Object.keys(seen!.args).sort(), ['code', 'draft', 'inputs', 'output', 'receipt', 'stdin']);
    assert.equal(seen!.args.output, '{"a":1}\n');
    assert.deepEqual([d.decision, d.reasons, d.id], ['hold', ['amount differs'], 7]);
  });
  test('a tool failure is a GateError', async () => {
    const gate = mcpGate(async () => ({ isError: true, content: [{ type: 'text', text: 'the gate is not configured' }] }));
    await assert.rejects(gate.submit({ draft: refundDraft('k'), evidence: EVIDENCE }), /gate_submit failed: the gate is not configured/);
  });
});

describe('cliGate with the real ampoule gate submit', () => {
  const fx = realFixture();
  const skip = typeof fx === 'string' ? `skipped: ${fx}` : false;

  test('send, then the same key again escalates', { skip }, async () => {
    if (typeof fx === 'string') return;
    const gate = cliGate({ ampoule: fx.ampoule, policy: fx.policy, kernel: fx.kernel });
    const key = freshKey('refund');
    const first = await gate.submit({ draft: refundDraft(key), evidence: fx.evidence });
    assert.equal(first.decision, 'send', JSON.stringify(first));
    assert.ok(first.outbox_file, 'a send names its outbox file');
    const again = await gate.submit({ draft: refundDraft(key), evidence: fx.evidence });
    assert.equal(again.decision, 'escalate', JSON.stringify(again));
  });

  test('a field that differs from the signed output is held', { skip }, async () => {
    if (typeof fx === 'string') return;
    const gate = cliGate({ ampoule: fx.ampoule, policy: fx.policy, kernel: fx.kernel });
    const draft = refundDraft(freshKey('refund'), {
      amount: { value: '125.00', from: '/refund' },
      recipient: { value: 'ana', from: '/customer' },
    });
    const d = await gate.submit({ draft, evidence: fx.evidence });
    assert.equal(d.decision, 'hold', JSON.stringify(d));
    assert.ok(d.reasons.some((r) => r.includes('amount')), d.reasons.join(' | '));
  });

  test('a receipt signed by an untrusted key is refused', { skip }, async () => {
    if (typeof fx === 'string') return;
    const gate = cliGate({ ampoule: fx.ampoule, policy: fx.policy, kernel: fx.kernel });
    const d = await gate.submit({ draft: refundDraft(freshKey('refund')), evidence: fx.untrusted });
    assert.equal(d.decision, 'refuse', JSON.stringify(d));
  });

  test('an output altered after the run is refused', { skip }, async () => {
    if (typeof fx === 'string') return;
    const gate = cliGate({ ampoule: fx.ampoule, policy: fx.policy, kernel: fx.kernel });
    const altered = { ...fx.evidence, output: fx.evidence.output.replace('12.50', '125.0') };
    const d = await gate.submit({ draft: refundDraft(freshKey('refund')), evidence: altered });
    assert.equal(d.decision, 'refuse', JSON.stringify(d));
  });

  test('a policy that cannot be read is a GateError, and the guard blocks', { skip }, async () => {
    if (typeof fx === 'string') return;
    const gate = cliGate({ ampoule: fx.ampoule, policy: `${fx.dir}/missing-policy.json`, kernel: fx.kernel });
    await assert.rejects(gate.submit({ draft: refundDraft(freshKey('refund')), evidence: fx.evidence }), GateError);
    const guard = new GateGuard({ gate, action: refundMapper(fx.evidence) });
    const v = await guard.check('issue_refund', { amount: '12.50', recipient: 'ana', key: freshKey('refund') });
    assert.equal(v.allow, false);
    assert.match(v.message, /decided nothing/);
  });
});
