// Runs a WASI preview-1 command module under Node's node:wasi, for checking the
// guest runtimes before our own engine runs them. Not part of the kernel.
//
// Usage: node run-wasi.mjs [--dir HOST=GUEST]... [--env NAME=VALUE]... MODULE.wasm [ARG...]
// stdin, stdout and stderr are the process's own; the exit code is the guest's.
import { readFile } from 'node:fs/promises';
import { WASI } from 'node:wasi';
import { argv, env, exit, stderr } from 'node:process';

function usage(message) {
  stderr.write(`run-wasi: ${message}\n` +
      'usage: node run-wasi.mjs [--dir HOST=GUEST]... [--env NAME=VALUE]... MODULE.wasm [ARG...]\n');
  exit(2);
}

function splitPair(text, flag) {
  const at = text.indexOf('=');
  if (at <= 0) usage(`${flag} wants NAME=VALUE, got '${text}'`);
  return [text.slice(0, at), text.slice(at + 1)];
}

const preopens = {};
const guestEnv = {};
let i = 2;
for (; i < argv.length; i++) {
  const flag = argv[i];
  if (flag === '--dir' || flag === '--env') {
    if (i + 1 >= argv.length) usage(`${flag} needs a value`);
    const [name, value] = splitPair(argv[++i], flag);
    if (flag === '--dir') preopens[value] = name;  // guest path -> host path
    else guestEnv[name] = value;
  } else {
    break;
  }
}
if (i >= argv.length) usage('no module given');
const modulePath = argv[i];
const guestArgs = argv.slice(i);  // argv[0] is the module itself, as a shell would pass it

const wasi = new WASI({
  version: 'preview1',
  args: guestArgs,
  env: guestEnv,
  preopens,
  returnOnExit: true,
});
const bytes = await readFile(modulePath);
const module = await WebAssembly.compile(bytes);
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
let code;
try {
  code = wasi.start(instance);
} catch (err) {
  // A trap (unreachable, out-of-bounds, stack overflow) ends the guest abnormally.
  stderr.write(`run-wasi: guest trapped: ${err && err.message ? err.message : err}\n`);
  code = 134;
}
exit(code ?? 0);
