// `ampoule mcp` and the trust gate for the Claude Agent SDK
// (@anthropic-ai/claude-agent-sdk).
//
//   ampouleMcpServers      the `mcpServers` option: { ampoule: stdio config }
//   ampouleHttpMcpServers  the same for `ampoule mcp --http ...`
//   gateCanUseTool         a `canUseTool` callback: allow when the gate
//                          decides send, deny with the decision and its
//                          reasons otherwise; tool calls the mapper does not
//                          call outbound go to `fallback` (default: allow)
//
// The MCP tools appear to the agent as mcp__<server name>__<tool>, e.g.
// mcp__ampoule__run_python.
import type { CanUseTool, McpHttpServerConfig, McpStdioServerConfig, PermissionResult } from '@anthropic-ai/claude-agent-sdk';

import type { GateGuard } from './gate.js';
import { mcpArgs } from './mcp-args.js';
import type { AmpouleMcpOptions } from './mcp-args.js';

export type { AmpouleMcpOptions } from './mcp-args.js';

/** `mcpServers: ampouleMcpServers({ key: 'agent.key' })` for query({ options }). */
export function ampouleMcpServers(options: AmpouleMcpOptions, name = 'ampoule'): Record<string, McpStdioServerConfig> {
  const { command, args, env } = mcpArgs(options);
  const config: McpStdioServerConfig = { type: 'stdio', command, args };
  if (Object.keys(env).length > 0) config.env = env;
  return { [name]: config };
}

/** `mcpServers` for `ampoule mcp --http 127.0.0.1:PORT` (url: http://127.0.0.1:PORT/mcp). */
export function ampouleHttpMcpServers(url: string, name = 'ampoule'): Record<string, McpHttpServerConfig> {
  return { [name]: { type: 'http', url } };
}

/** The full tool name under which the agent sees an ampoule tool. */
export function mcpToolName(tool: string, server = 'ampoule'): string {
  return `mcp__${server}__${tool}`;
}

export interface CanUseToolOptions {
  /** Decides tool calls that are not outbound actions; default: allow them unchanged. */
  fallback?: CanUseTool;
  /** Stop the agent's turn on a block instead of letting the model continue (default false). */
  interruptOnBlock?: boolean;
}

/** A canUseTool callback that gates outbound actions through the trust gate. */
export function gateCanUseTool(guard: GateGuard, options: CanUseToolOptions = {}): CanUseTool {
  return async (toolName, input, ctx): Promise<PermissionResult | null> => {
    const callId = ctx.toolUseID;
    const verdict = await guard.check(toolName, input, callId);
    if (!verdict.gated) {
      if (options.fallback) return options.fallback(toolName, input, ctx);
      return { behavior: 'allow', updatedInput: input };
    }
    if (verdict.allow) return { behavior: 'allow', updatedInput: input };
    return { behavior: 'deny', message: verdict.message, interrupt: options.interruptOnBlock ?? false };
  };
}
