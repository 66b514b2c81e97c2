// Shared by the interop tests: the binaries from the environment, a
// temporary folder with a signing key, starting `ampoule mcp --http` on a
// free loopback port, and running a command to completion.
//
//   AMPOULE         the ampoule binary (required)
//   AMPOULE_VERIFY  the ampoule-verify binary (required)
//   AMPOULE_KERNEL  the kernel file (required; tests/mcp/interop.sh finds it)
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const AMPOULE = process.env.AMPOULE ?? '';
export const AMPOULE_VERIFY = process.env.AMPOULE_VERIFY ?? '';
export const KERNEL = process.env.AMPOULE_KERNEL ?? '';

export function missing() {
  if (!AMPOULE) return 'AMPOULE is not set';
  if (!AMPOULE_VERIFY) return 'AMPOULE_VERIFY is not set';
  if (!KERNEL) return 'AMPOULE_KERNEL is not set';
  return '';
}

/** A temporary folder with agent.key(.pub), removed when the process exits. */
export function workDir() {
  const dir = mkdtempSync(path.join(tmpdir(), 'ampoule-mcp-interop-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  execFileSync(AMPOULE, ['keygen', '-o', path.join(dir, 'agent.key')], { stdio: 'ignore' });
  return { dir, key: path.join(dir, 'agent.key'), pub: path.join(dir, 'agent.key.pub') };
}

/**
 * Starts `ampoule mcp --http 127.0.0.1:0` with extra args; resolves with
 * {child, url} once it printed its address. The child is killed on exit.
 */
export function startHttp(args) {
  const child = spawn(AMPOULE, ['mcp', ...args, '--http', '127.0.0.1:0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  process.on('exit', () => child.kill('SIGKILL'));
  return new Promise((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`ampoule mcp --http printed no address: ${err}`)), 30000);
    child.stderr.setEncoding('utf8').on('data', (d) => {
      err += d;
      const m = /ampoule mcp: listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1], stderr: () => err });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`ampoule mcp --http exited ${code}: ${err}`));
    });
  });
}

/** Runs a command; resolves with {code, stdout, stderr}. */
export function runCommand(cmd, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
