// The Ampoule agent adapters: the trust gate client (gate.ts) and the
// bindings for the OpenAI Agents SDK (openai.ts) and the Claude Agent SDK
// (claude.ts). Import the SDK-specific module you use; each loads only its
// own SDK.
export * from './gate.js';
export type { AmpouleMcpOptions } from './mcp-args.js';
