// Runs a WASI preview-1 module under Node's node:wasi, for checking the guest
// runtimes independently of our own engine. Not part of the kernel.
//
// Usage: node run-wasi.mjs [--dir HOST=GUEST]... [--env NAME=VALUE]... MODULE.wasm [ARG...]
//
// A command module (exporting _start) is started as usual. A reactor in the
// shape of python.wasm and js.wasm (exporting _initialize, ampoule_init and
// ampoule_main; see docs/runtimes.md) is run the way our host runs it:
// _initialize, ampoule_init (must return 0), ampoule_main, whose result is
// the exit status. Directories are preopened in the order given (fd 3, 4,
// ...), so pass /usr/local, /input, /program in that order for the runtimes.
// The guest's argv is MODULE's base name without ".wasm" followed by the ARGs
// (["python", "/program/prog.py"], as our host passes it).
//
// Besides WASI the guest gets the one other import module the runtimes have,
// a Volent tool's HTTP capability "volent:tool/http@0.1.0" (request, answer;
// wit/volent-tool.wit), as a fake that sends nothing: a request for
// http://fake.test/echo is answered status 200 with the request's own JSON
// text as the body, one for http://fake.test/bytes with a body that is not
// UTF-8 (body_base64), and any other with {"error":"unavailable",...}, as a
// plain `ampoule run` answers.
//
// stdin, stdout and stderr are the process's own; the exit code is the
// guest's, or 134 when the guest trapped. The guest runs on a worker thread
// with a large native stack, so deep guest recursion ends in the guest's own
// error (or in a trap of its own stack), not in V8's stack limit.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { argv, exit, stderr } from 'node:process';
import { WASI } from 'node:wasi';
import { Worker, isMainThread, workerData } from 'node:worker_threads';

const kStackSizeMb = 1024;
const kTrapStatus = 134;

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

function parseArgs(args) {
  const preopens = {};  // guest path -> host path, in insertion order
  const env = {};
  let i = 0;
  for (; i < args.length; i++) {
    const flag = args[i];
    if (flag !== '--dir' && flag !== '--env') break;
    if (i + 1 >= args.length) usage(`${flag} needs a value`);
    const [name, value] = splitPair(args[++i], flag);
    if (flag === '--dir') preopens[value] = name;
    else env[name] = value;
  }
  if (i >= args.length) usage('no module given');
  const modulePath = args[i];
  const guestArgs = [path.basename(modulePath).replace(/\.wasm$/, ''), ...args.slice(i + 1)];
  return { preopens, env, modulePath, guestArgs };
}

class GuestExit {
  constructor(code) { this.code = code; }
}

function describe(err) {
  return err && err.message ? err.message : String(err);
}

// The fake volent:tool/http@0.1.0 described above; MEMORY() is the guest's
// memory. Bytes outside it throw, which ends the guest as a trap does.
function fakeToolHttp(memory) {
  let last = new Uint8Array(0);
  const bytes = (ptr, len) => new Uint8Array(memory().buffer, ptr >>> 0, len >>> 0);
  function answerFor(raw) {
    let text, request;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
      request = JSON.parse(text);
    } catch (err) {
      return { error: 'invalid', reason: `the request is not JSON text: ${describe(err)}` };
    }
    if (request?.url === 'http://fake.test/echo') {
      return { status: 200, headers: [['content-type', 'application/json']], body: text };
    }
    if (request?.url === 'http://fake.test/bytes') {
      return { status: 200, headers: [['content-type', 'application/octet-stream']],
               body_base64: Buffer.from([0, 0xff, 0xfe, 0x41]).toString('base64') };
    }
    return { error: 'unavailable', reason: 'no node is answering (run-wasi.mjs fakes only http://fake.test/)' };
  }
  return {
    request(ptr, len) {
      last = new TextEncoder().encode(JSON.stringify(answerFor(bytes(ptr, len))));
      return last.length;
    },
    answer(ptr, len) {
      const n = Math.min(len >>> 0, last.length);
      bytes(ptr, n).set(last.subarray(0, n));
      return n;
    },
  };
}

async function runGuest({ preopens, env, modulePath, guestArgs }) {
  const wasi = new WASI({ version: 'preview1', args: guestArgs, env, preopens, returnOnExit: true });
  const imports = wasi.getImportObject();
  let instance;
  imports['volent:tool/http@0.1.0'] = fakeToolHttp(() => instance.exports.memory);
  // proc_exit ends the guest with our own marker, so that it works the same
  // whether the guest was entered by wasi.start or by a reactor export.
  imports.wasi_snapshot_preview1.proc_exit = (code) => { throw new GuestExit(code); };
  const module = await WebAssembly.compile(await readFile(modulePath));
  instance = await WebAssembly.instantiate(module, imports);
  const ex = instance.exports;
  try {
    if (typeof ex._start === 'function') {
      wasi.start(instance);
      return 0;
    }
    if (typeof ex.ampoule_init !== 'function' || typeof ex.ampoule_main !== 'function') {
      stderr.write('run-wasi: the module exports neither _start nor ampoule_init/ampoule_main\n');
      return 2;
    }
    wasi.initialize(instance);  // calls _initialize
    const init = ex.ampoule_init();
    if (init !== 0) {
      stderr.write(`run-wasi: ampoule_init returned ${init}\n`);
      return init;
    }
    return ex.ampoule_main() >>> 0;
  } catch (err) {
    if (err instanceof GuestExit) return err.code >>> 0;
    // A trap (unreachable, out-of-bounds, stack overflow) ends the guest abnormally.
    stderr.write(`run-wasi: guest trapped: ${describe(err)}\n`);
    return kTrapStatus;
  }
}

if (isMainThread) {
  const job = parseArgs(argv.slice(2));
  const worker = new Worker(new URL(import.meta.url), {
    workerData: job,
    resourceLimits: { stackSizeMb: kStackSizeMb },
    stdout: false,
    stderr: false,
  });
  worker.on('message', (code) => { process.exitCode = code; });
  worker.on('error', (err) => {
    stderr.write(`run-wasi: ${describe(err)}\n`);
    process.exitCode = kTrapStatus;
  });
} else {
  const { parentPort } = await import('node:worker_threads');
  parentPort.postMessage(await runGuest(workerData));
}
