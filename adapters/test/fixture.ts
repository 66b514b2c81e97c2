// Real receipts for the adapter tests, made the way tests/gate/lib.sh makes
// them: `ampoule keygen`, `ampoule run` of a small refund program signed with
// the trusted key (and once with an untrusted one), and a gate policy that
// trusts the first key and pins the kernel.
//
// Needs AMPOULE (the binary) and a kernel (AMPOULE_KERNEL, else
// `ampoule kernel path`); `realFixture()` returns the reason when they are
// missing, so a test can skip with it. The fixture is built once per process.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import type { ActionDraft, Decision, Evidence, Gate, GateDecision, GatedAction } from '../src/gate.js';

export interface Fixture {
  ampoule: string;
  kernel: string;
  dir: string;
  key: string; // the trusted signing key
  policy: string;
  evidence: Evidence; // signed with the trusted key
  untrusted: Evidence; // the same run signed with an untrusted key
  /** Does this binary have `ampoule mcp`? */
  hasMcp: boolean;
  cleanup(): void;
}

export const REFUND_PY = `import json
rows = [line.strip().split(",") for line in open("/input/orders.csv") if line.strip()]
order, refund, customer = rows[-1]
print(json.dumps({"order": order, "refund": refund, "customer": customer}))
`;
export const ORDERS_CSV = 'A-1,12.50,ana\n';

let cached: Fixture | string | undefined;

export function realFixture(): Fixture | string {
  if (cached === undefined) cached = build();
  return cached;
}

function build(): Fixture | string {
  const ampoule = process.env.AMPOULE;
  if (!ampoule) return 'AMPOULE (the ampoule binary) is not set';
  if (!existsSync(ampoule)) return `ampoule binary '${ampoule}' not found`;
  let kernel = process.env.AMPOULE_KERNEL ?? '';
  if (!kernel) {
    const r = spawnSync(ampoule, ['kernel', 'path'], { encoding: 'utf8' });
    kernel = r.status === 0 ? r.stdout.trim() : '';
  }
  if (!kernel || !existsSync(kernel)) return 'no kernel file; build one with scripts/build-kernel.sh or set AMPOULE_KERNEL';
  const dir = mkdtempSync(path.join(tmpdir(), 'ampoule-adapters-'));
  const run = (args: string[]) => execFileSync(ampoule, args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  run(['keygen', '-o', 'agent.key']);
  run(['keygen', '-o', 'other.key']);
  writeFileSync(path.join(dir, 'refund.py'), REFUND_PY);
  writeFileSync(path.join(dir, 'orders.csv'), ORDERS_CSV);
  const signed = (key: string, receipt: string): Evidence => {
    const output = run(['run', 'refund.py', '--kernel', kernel, '--key', key, '-o', receipt, '--input', 'orders.csv=orders.csv']);
    return {
      receipt: readFileSync(path.join(dir, receipt), 'utf8'),
      code: REFUND_PY,
      inputs: { 'orders.csv': ORDERS_CSV },
      output,
    };
  };
  const evidence = signed('agent.key', 'refund.receipt.json');
  const untrusted = signed('other.key', 'other.receipt.json');
  const info = spawnSync(ampoule, ['kernel', 'info', kernel], { encoding: 'utf8' });
  let kernelSha = /^sha256\s+([0-9a-f]{64})/m.exec(info.stdout ?? '')?.[1];
  if (!kernelSha) kernelSha = createHash('sha256').update(readFileSync(kernel)).digest('hex');
  const policy = path.join(dir, 'policy.json');
  writeFileSync(
    policy,
    JSON.stringify(
      {
        trusted_keys: ['agent.key.pub'],
        kernel_sha256: kernelSha,
        max_data_age_seconds: 86400,
        replay_fuel_ceiling: 20000000000,
        decision_log: 'gate.db',
        outbox: 'outbox',
      },
      null,
      2,
    ),
  );
  // Removed when the test process ends (every test file shares the fixture).
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const hasMcp = spawnSync(ampoule, ['mcp', '--help'], { encoding: 'utf8' }).status === 0;
  return {
    ampoule,
    kernel,
    dir,
    key: path.join(dir, 'agent.key'),
    policy,
    evidence,
    untrusted,
    hasMcp,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

let counter = 0;
/** A fresh idempotency key per call, so tests do not collide in the decision log. */
export function freshKey(prefix: string): string {
  counter += 1;
  return `${prefix}:${process.pid}:${counter}`;
}

/** The refund action the fixture's output backs (amount 12.50 to ana), with fields overridable. */
export function refundDraft(key: string, fields?: ActionDraft['fields']): ActionDraft {
  return {
    kind: 'refund',
    idempotency_key: key,
    fields: fields ?? {
      amount: { value: '12.50', from: '/refund' },
      recipient: { value: 'ana', from: '/customer' },
    },
    data_as_of: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  };
}

/**
 * The outbound tool the tests gate: `issue_refund({amount, recipient, key})`,
 * backed by the given evidence.
 */
export function refundMapper(evidence: Evidence) {
  return (toolName: string, input: Record<string, unknown>): GatedAction | undefined => {
    if (!toolName.endsWith('issue_refund')) return undefined;
    return {
      draft: refundDraft(String(input.key), {
        amount: { value: input.amount, from: '/refund' },
        recipient: { value: input.recipient, from: '/customer' },
      }),
      evidence,
    };
  };
}

/** A gate that answers with a fixed decision and counts submissions. */
export function scriptedGate(decision: Decision | Error, reasons: string[] = []): Gate & { calls: GatedAction[] } {
  const calls: GatedAction[] = [];
  return {
    calls,
    async submit(action) {
      calls.push(action);
      if (decision instanceof Error) throw decision;
      return { decision, reasons, id: calls.length } satisfies GateDecision;
    },
  };
}

