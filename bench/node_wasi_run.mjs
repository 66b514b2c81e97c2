// Runs a WASI command module on Node's V8 (node:wasi), for bench/engine.sh.
//
//   node --no-warnings --experimental-wasi-unstable-preview1 bench/node_wasi_run.mjs MODULE.wasm [ARGS...]
//
// (The flag is needed by Node 18, Debian 12's version, and accepted by later ones.)
// The guest gets ARGS (argv[0] is the module's file name), no environment,
// no preopened directories, and the process's stdio. Exits with the guest's
// status.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { WASI } from 'node:wasi';

const [file, ...args] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node_wasi_run.mjs MODULE.wasm [ARGS...]\n');
  process.exit(2);
}
const wasi = new WASI({ version: 'preview1', args: [basename(file), ...args], env: {}, preopens: {},
                        returnOnExit: true });
const module = await WebAssembly.compile(await readFile(file));
const imports = typeof wasi.getImportObject === 'function'
    ? wasi.getImportObject()
    : { wasi_snapshot_preview1: wasi.wasiImport };
const instance = await WebAssembly.instantiate(module, imports);
process.exitCode = wasi.start(instance);
