// `ampoule mcp` and the trust gate for the OpenAI Agents SDK (@openai/agents).
//
//   ampouleStdioServer   an MCPServerStdio that starts `ampoule mcp --key K ...`
//   ampouleHttpServer    an MCPServerStreamableHttp for `ampoule mcp --http ...`
//   gateInputGuardrail   a tool input guardrail: the call runs only when the
//                        gate decides send; otherwise the model gets the
//                        decision and its reasons instead of the tool's result
//   gateNeedsApproval    a needsApproval function: true (a human must decide)
//                        unless the gate decided send; the verdict, with its
//                        reasons, is in guard.verdictFor(callId)
//   gatedTool            tool(...) with the guardrail attached
//
// The servers are only constructed here; `await server.connect()` (or
// `run(agent, ...)` with `mcpServers: [server]`) starts them.
import {
  MCPServerStdio,
  MCPServerStreamableHttp,
  ToolGuardrailFunctionOutputFactory,
  defineToolInputGuardrail,
  tool,
} from '@openai/agents';
import type { ToolInputGuardrailDefinition } from '@openai/agents';

import { GateGuard, mcpGate } from './gate.js';
import type { Gate } from './gate.js';
import { mcpArgs } from './mcp-args.js';
import type { AmpouleMcpOptions } from './mcp-args.js';

export type { AmpouleMcpOptions } from './mcp-args.js';

export interface StdioServerOptions extends AmpouleMcpOptions {
  /** The server's name in traces and tool listings (default "ampoule"). */
  name?: string;
  /** Cache tools/list across runs (the tool set of `ampoule mcp` is fixed). Default true. */
  cacheToolsList?: boolean;
  /** Give the model the tools' structuredContent (stdout, receipt, ...) instead of their text. */
  useStructuredContent?: boolean;
  /** Per-request timeout in seconds (runs may take as long as their timeout_seconds). */
  clientSessionTimeoutSeconds?: number;
}

/** `ampoule mcp` over stdio, for `new Agent({ mcpServers: [server] })`. */
export function ampouleStdioServer(options: StdioServerOptions): MCPServerStdio {
  const { command, args, env } = mcpArgs(options);
  return new MCPServerStdio({
    name: options.name ?? 'ampoule',
    command,
    args,
    env: { ...processEnv(), ...env },
    cacheToolsList: options.cacheToolsList ?? true,
    useStructuredContent: options.useStructuredContent ?? false,
    clientSessionTimeoutSeconds: options.clientSessionTimeoutSeconds ?? 300,
  });
}

export interface HttpServerOptions {
  /** The endpoint, e.g. http://127.0.0.1:8765/mcp (as `ampoule mcp --http` prints it). */
  url: string;
  name?: string;
  cacheToolsList?: boolean;
  useStructuredContent?: boolean;
  clientSessionTimeoutSeconds?: number;
}

/** `ampoule mcp --http 127.0.0.1:PORT` over Streamable HTTP. */
export function ampouleHttpServer(options: HttpServerOptions): MCPServerStreamableHttp {
  return new MCPServerStreamableHttp({
    name: options.name ?? 'ampoule',
    url: options.url,
    cacheToolsList: options.cacheToolsList ?? true,
    useStructuredContent: options.useStructuredContent ?? false,
    clientSessionTimeoutSeconds: options.clientSessionTimeoutSeconds ?? 300,
  });
}

/** A gate reached through the `gate_submit` tool of a connected server (started with --policy). */
export function serverGate(server: MCPServerStdio | MCPServerStreamableHttp): Gate {
  return mcpGate((name, args) => server.callToolResult(name, args));
}

function parseArguments(text: string): Record<string, unknown> {
  const v: unknown = text.trim() === '' ? {} : JSON.parse(text);
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('tool arguments are not a JSON object');
  return v as Record<string, unknown>;
}

/**
 * A tool input guardrail that lets a call run only when the gate decides
 * send. A hold, escalate or refuse (or a gate that cannot decide) rejects the
 * call: the model receives the decision and its reasons as the tool's output.
 */
export function gateInputGuardrail(guard: GateGuard, name = 'ampoule-gate'): ToolInputGuardrailDefinition {
  return defineToolInputGuardrail({
    name,
    run: async ({ toolCall }) => {
      let input: Record<string, unknown>;
      try {
        input = parseArguments(toolCall.arguments);
      } catch (e) {
        return ToolGuardrailFunctionOutputFactory.rejectContent(
          `ampoule gate: blocked, unreadable tool arguments: ${e instanceof Error ? e.message : String(e)}`,
        );
      }
      const verdict = await guard.check(toolCall.name, input, toolCall.callId);
      return verdict.allow
        ? ToolGuardrailFunctionOutputFactory.allow(verdict)
        : ToolGuardrailFunctionOutputFactory.rejectContent(verdict.message, verdict);
    },
  });
}

/**
 * A needsApproval function for `tool({ needsApproval })`: no approval is
 * needed when the gate decided send; anything else interrupts the run for a
 * person, who reads `await guard.verdictFor(callId)` for the reasons.
 */
export function gateNeedsApproval(guard: GateGuard, toolName: string) {
  return async (_runContext: unknown, input: unknown, callId?: string): Promise<boolean> => {
    const args = typeof input === 'string' ? parseArguments(input) : (input as Record<string, unknown>);
    const verdict = await guard.check(toolName, args ?? {}, callId);
    return !verdict.allow;
  };
}

type ToolOptions = Parameters<typeof tool>[0];

/** `tool(options)` with the gate's input guardrail added to any it already has. */
export function gatedTool(options: ToolOptions, guard: GateGuard) {
  const existing = ((options as { inputGuardrails?: unknown[] }).inputGuardrails ?? []) as ToolInputGuardrailDefinition[];
  return tool({ ...options, inputGuardrails: [...existing, gateInputGuardrail(guard)] } as ToolOptions);
}

function processEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) out[k] = v;
  return out;
}
