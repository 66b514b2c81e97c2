// The trust gate (docs/gate.md) as seen from an agent framework: an outbound
// tool action goes out only when the gate decides `send`; `hold`,
// `escalate` and `refuse` block it, with the gate's reasons; a gate that
// cannot decide (bad draft, unreadable policy, missing binary) blocks too:
// the guard fails closed.
//
// Two ways to reach the gate, same answers:
//   cliGate  spawns `ampoule gate submit DRAFT --policy P --json`, with the
//            evidence written to a private temporary folder;
//   mcpGate  calls the `gate_submit` tool of `ampoule mcp --policy P`.
//
// A GateGuard maps a tool call to an action (the application says which
// tool calls are outbound actions and what they assert) and asks the gate.
// A gate `send` also delivers the action to the policy's outbox, exactly once
// per idempotency key, so the guard asks at most once per tool call id: a
// framework that evaluates the same call twice gets the first verdict back
// instead of a duplicate escalation.
import { spawn } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

export type Decision = 'send' | 'hold' | 'escalate' | 'refuse';

/** What the gate decided (the `--json` object of `ampoule gate submit`, or gate_submit's structuredContent). */
export interface GateDecision {
  decision: Decision;
  /** Every rule that applied, the deciding one first. */
  reasons: string[];
  /** The decision's number in the decision log. */
  id?: number;
  idempotency_key?: string;
  kind?: string;
  receipt_sha256?: string;
  /** A delivered send: the outbox message's file. */
  outbox_file?: string;
  /** The whole object as the gate returned it. */
  raw?: Record<string, unknown>;
}

/** One asserted field: `value` must equal the signed output at JSON Pointer `from`. */
export interface DraftField {
  value: unknown;
  from: string;
}

/** The action draft of docs/gate.md, without its evidence. */
export interface ActionDraft {
  kind: string;
  idempotency_key: string;
  fields: Record<string, DraftField>;
  /** RFC 3339 UTC (`...Z`): when the data the action rests on was exported. */
  data_as_of: string;
}

/**
 * The run behind an action, as `ampoule run` or the MCP run tools produced it:
 * the receipt, the program, its inputs and stdin, and its stdout as printed.
 */
export interface Evidence {
  /** The receipt: the DSSE envelope object, or its text. */
  receipt: Record<string, unknown> | string;
  /** The program's source text (Python or JavaScript). */
  code?: string;
  /** A Wasm program instead of code, in base64. */
  module_base64?: string;
  /** Input files: name (as the receipt gives it) -> text. */
  inputs?: Record<string, string>;
  stdin?: string;
  /** The run's stdout, as printed. */
  output: string;
}

export interface GatedAction {
  draft: ActionDraft;
  evidence: Evidence;
}

/** Raised when the gate decided nothing (exit 2, a tool failure, no binary). */
export class GateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GateError';
  }
}

export interface Gate {
  submit(action: GatedAction): Promise<GateDecision>;
}

const DECISIONS: readonly Decision[] = ['send', 'hold', 'escalate', 'refuse'];

function asDecision(obj: unknown, where: string): GateDecision {
  if (typeof obj !== 'object' || obj === null) throw new GateError(`${where}: not a JSON object`);
  const o = obj as Record<string, unknown>;
  if (typeof o.error === 'string') throw new GateError(`${where}: ${o.error}`);
  const decision = o.decision;
  if (typeof decision !== 'string' || !DECISIONS.includes(decision as Decision)) {
    throw new GateError(`${where}: no decision in ${JSON.stringify(o).slice(0, 300)}`);
  }
  const reasons = Array.isArray(o.reasons) ? o.reasons.map(String) : [];
  const out: GateDecision = { decision: decision as Decision, reasons, raw: o };
  if (typeof o.id === 'number') out.id = o.id;
  if (typeof o.idempotency_key === 'string') out.idempotency_key = o.idempotency_key;
  if (typeof o.kind === 'string') out.kind = o.kind;
  if (typeof o.receipt_sha256 === 'string') out.receipt_sha256 = o.receipt_sha256;
  if (typeof o.outbox_file === 'string') out.outbox_file = o.outbox_file;
  return out;
}

// An input's name becomes a path under the temporary folder: refuse names
// that would leave it (the gate itself checks names against the receipt).
function safeName(name: string): string {
  if (name === '' || name.startsWith('/') || name.split('/').some((p) => p === '..' || p === '' || p === '.')) {
    throw new GateError(`input name '${name}' is not a plain relative path`);
  }
  return name;
}

export interface CliGateOptions {
  /** The `ampoule` binary (default: `ampoule` on PATH). */
  ampoule?: string;
  /** The gate policy file (docs/gate.md). */
  policy: string;
  /** The kernel file (default: the installed one, or AMPOULE_KERNEL). */
  kernel?: string;
  /** Override the policy's decision log / outbox. */
  db?: string;
  outbox?: string;
  /** Extra environment for the child process. */
  env?: Record<string, string>;
}

interface Spawned {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<Spawned> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', (e) => reject(new GateError(`cannot run ${cmd}: ${e.message}`)));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The gate through `ampoule gate submit --json` (exit 0 send, 1 refuse, 3 hold, 4 escalate, 2 error). */
export function cliGate(options: CliGateOptions): Gate {
  const ampoule = options.ampoule ?? 'ampoule';
  return {
    async submit(action: GatedAction): Promise<GateDecision> {
      const { draft, evidence } = action;
      if ((evidence.code === undefined) === (evidence.module_base64 === undefined)) {
        throw new GateError('evidence needs the program as code or as module_base64 (exactly one)');
      }
      const dir = await mkdtemp(path.join(tmpdir(), 'ampoule-gate-'));
      try {
        const receiptText =
          typeof evidence.receipt === 'string' ? evidence.receipt : JSON.stringify(evidence.receipt, null, 2) + '\n';
        await writeFile(path.join(dir, 'receipt.json'), receiptText);
        const program =
          evidence.code !== undefined ? Buffer.from(evidence.code, 'utf8') : Buffer.from(evidence.module_base64!, 'base64');
        await writeFile(path.join(dir, 'program'), program);
        await writeFile(path.join(dir, 'output'), evidence.output);
        const ev: Record<string, unknown> = { receipt: 'receipt.json', program: 'program', output: 'output' };
        if (evidence.stdin !== undefined) {
          await writeFile(path.join(dir, 'stdin'), evidence.stdin);
          ev.stdin = 'stdin';
        }
        if (evidence.inputs && Object.keys(evidence.inputs).length > 0) {
          const inputs: Record<string, string> = {};
          for (const [name, text] of Object.entries(evidence.inputs)) {
            const rel = path.posix.join('inputs', safeName(name));
            await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
            await writeFile(path.join(dir, rel), text);
            inputs[name] = rel;
          }
          ev.inputs = inputs;
        }
        await writeFile(path.join(dir, 'draft.json'), JSON.stringify({ ...draft, evidence: ev }, null, 2) + '\n');
        const args = ['gate', 'submit', path.join(dir, 'draft.json'), '--policy', options.policy, '--json'];
        if (options.kernel) args.push('--kernel', options.kernel);
        if (options.db) args.push('--db', options.db);
        if (options.outbox) args.push('--outbox', options.outbox);
        const r = await run(ampoule, args, { ...process.env, ...options.env });
        let parsed: unknown;
        try {
          parsed = JSON.parse(r.stdout);
        } catch {
          const why = r.stderr.trim().split('\n').slice(-3).join(' / ');
          throw new GateError(`ampoule gate submit exited ${r.code} without a JSON answer${why ? `: ${why}` : ''}`);
        }
        return asDecision(parsed, `ampoule gate submit (exit ${r.code})`);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

/** The part of an MCP tool result the gate reads (CallToolResult of the MCP SDKs). */
export interface ToolResultLike {
  structuredContent?: unknown;
  isError?: boolean;
  content?: unknown;
}

/**
 * Calls an MCP tool by name. Fits the official client
 * (`(name, args) => client.callTool({ name, arguments: args })`) and the
 * OpenAI Agents SDK's servers (`(name, args) => server.callToolResult(name, args)`).
 */
export type CallTool = (name: string, args: Record<string, unknown>) => Promise<ToolResultLike>;

function resultText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .map((c) => (c && typeof c === 'object' && typeof (c as { text?: unknown }).text === 'string' ? (c as { text: string }).text : ''))
    .filter(Boolean)
    .join(' ');
}

/** The gate through the `gate_submit` tool of `ampoule mcp --policy P`. */
export function mcpGate(callTool: CallTool, toolName = 'gate_submit'): Gate {
  return {
    async submit(action: GatedAction): Promise<GateDecision> {
      const { draft, evidence } = action;
      const args: Record<string, unknown> = { draft, receipt: evidence.receipt, output: evidence.output };
      if (evidence.code !== undefined) args.code = evidence.code;
      if (evidence.module_base64 !== undefined) args.module_base64 = evidence.module_base64;
      if (evidence.inputs !== undefined) args.inputs = evidence.inputs;
      if (evidence.stdin !== undefined) args.stdin = evidence.stdin;
      const result = await callTool(toolName, args);
      if (result.isError) throw new GateError(`${toolName} failed: ${resultText(result.content) || 'no message'}`);
      return asDecision(result.structuredContent, toolName);
    },
  };
}

/**
 * The evidence of one run of `run_python` / `run_javascript` / `run_wasm`:
 * the arguments the tool was called with and its structuredContent.
 */
export function evidenceFromRun(args: Record<string, unknown>, structured: Record<string, unknown>): Evidence {
  const receipt = structured.receipt;
  if (receipt === undefined || receipt === null) throw new GateError('the run result has no receipt');
  if (typeof structured.stdout !== 'string') throw new GateError('the run result has no stdout');
  const ev: Evidence = { receipt: receipt as Evidence['receipt'], output: structured.stdout };
  if (typeof args.code === 'string') ev.code = args.code;
  if (typeof args.module_base64 === 'string') ev.module_base64 = args.module_base64;
  if (args.inputs && typeof args.inputs === 'object') ev.inputs = args.inputs as Record<string, string>;
  if (typeof args.stdin === 'string') ev.stdin = args.stdin;
  return ev;
}

/** What the guard concluded for one tool call. */
export interface Verdict {
  /** True only for a gate `send`, or for a tool call that is not an outbound action. */
  allow: boolean;
  /** False when the tool call was not an outbound action (the gate was not asked). */
  gated: boolean;
  decision?: GateDecision;
  /** For people and for the model: the decision and its reasons, or why the gate could not decide. */
  message: string;
}

/**
 * Which tool calls are outbound actions, and what they assert: return the
 * action for an outbound call, `undefined` for a call the gate does not
 * concern (it is then allowed). Throwing blocks the call with the message.
 */
export type ActionMapper = (
  toolName: string,
  input: Record<string, unknown>,
) => GatedAction | undefined | Promise<GatedAction | undefined>;

export interface GateGuardOptions {
  gate: Gate;
  action: ActionMapper;
}

export function describeDecision(d: GateDecision): string {
  const head = `ampoule gate: ${d.decision.toUpperCase()}${d.id !== undefined ? ` (decision #${d.id})` : ''}`;
  return d.reasons.length ? `${head}: ${d.reasons.join('; ')}` : head;
}

export class GateGuard {
  private readonly gate: Gate;
  private readonly action: ActionMapper;
  private readonly byCallId = new Map<string, Promise<Verdict>>();

  constructor(options: GateGuardOptions) {
    this.gate = options.gate;
    this.action = options.action;
  }

  /**
   * Asks the gate about one tool call. With a callId the verdict is
   * remembered: asking again for the same call returns it without a second
   * submission.
   */
  check(toolName: string, input: Record<string, unknown>, callId?: string): Promise<Verdict> {
    if (callId === undefined) return this.decide(toolName, input);
    let v = this.byCallId.get(callId);
    if (!v) {
      v = this.decide(toolName, input);
      this.byCallId.set(callId, v);
    }
    return v;
  }

  /** The verdict already reached for a call id, if any. */
  verdictFor(callId: string): Promise<Verdict> | undefined {
    return this.byCallId.get(callId);
  }

  private async decide(toolName: string, input: Record<string, unknown>): Promise<Verdict> {
    let action: GatedAction | undefined;
    try {
      action = await this.action(toolName, input);
    } catch (e) {
      return { allow: false, gated: true, message: `ampoule gate: blocked, the action could not be described: ${errText(e)}` };
    }
    if (action === undefined) return { allow: true, gated: false, message: 'not an outbound action' };
    let decision: GateDecision;
    try {
      decision = await this.gate.submit(action);
    } catch (e) {
      return { allow: false, gated: true, message: `ampoule gate: blocked, the gate decided nothing: ${errText(e)}` };
    }
    return { allow: decision.decision === 'send', gated: true, decision, message: describeDecision(decision) };
  }
}

function errText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
