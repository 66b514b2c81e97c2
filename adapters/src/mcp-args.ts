// The command line that starts `ampoule mcp` over stdio, shared by the
// OpenAI and Claude adapters:
//   ampoule mcp --key KEY [--kernel K] [--policy GATE_POLICY]
// The key signs the receipts of runs; --policy enables the gate_submit tool.

export interface AmpouleMcpOptions {
  /** The `ampoule` binary (default: `ampoule` on PATH). */
  ampoule?: string;
  /** The receipt signing key, made by `ampoule keygen -o KEY`. */
  key: string;
  /** The kernel file (default: the installed one, or AMPOULE_KERNEL). */
  kernel?: string;
  /** A gate policy (docs/gate.md): enables the gate_submit tool. */
  policy?: string;
  /** Extra environment for the server process. */
  env?: Record<string, string>;
}

export function mcpArgs(options: AmpouleMcpOptions): { command: string; args: string[]; env: Record<string, string> } {
  if (!options.key) throw new Error('ampoule mcp needs a signing key: make one with `ampoule keygen -o agent.key`');
  const args = ['mcp', '--key', options.key];
  if (options.kernel) args.push('--kernel', options.kernel);
  if (options.policy) args.push('--policy', options.policy);
  return { command: options.ampoule ?? 'ampoule', args, env: { ...(options.env ?? {}) } };
}
