// Runs a WASI command module under Node's node:wasi with the same options
// `ampoule wasm run` takes (--dir GUEST=HOST, --env K=V, --stdin FILE,
// -- ARGS), so the two can be compared on host-independent programs.
// argv[0] is the module's file name, as ampoule sets it.
import { readFileSync, openSync } from 'node:fs';
import { basename } from 'node:path';
import { WASI } from 'node:wasi';

const argv = process.argv.slice(2);
const preopens = {};
const env = {};
let stdin = undefined;
let module = undefined;
const args = [];
for (let i = 0; i < argv.length; ++i) {
  const a = argv[i];
  if (a === '--') { args.push(...argv.slice(i + 1)); break; }
  if (a === '--dir') { const [g, h] = argv[++i].split('='); preopens[g] = h; continue; }
  if (a === '--env') {
    const v = argv[++i];
    const eq = v.indexOf('=');
    env[v.slice(0, eq)] = v.slice(eq + 1);
    continue;
  }
  if (a === '--stdin') { stdin = openSync(argv[++i], 'r'); continue; }
  module = a;
}
const wasi = new WASI({ version: 'preview1', args: [basename(module), ...args], env, preopens,
                        stdin: stdin ?? openSync('/dev/null', 'r'), returnOnExit: true });
const compiled = new WebAssembly.Module(readFileSync(module));
const instance = await WebAssembly.instantiate(compiled, wasi.getImportObject());
process.exitCode = wasi.start(instance);
