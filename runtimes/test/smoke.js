// Smoke test for js.wasm: the language and the helpers js.wasm adds work, and
// what WASI cannot do fails with an ordinary JavaScript error.
// Prints one line per check and "N passed, N failed"; exits 1 on any failure.
const results = [];

function check(name, fn) {
  try {
    fn();
    results.push([name, null]);
  } catch (e) {
    results.push([name, String(e)]);
  }
}

function assert(cond, what) {
  if (!cond) throw new Error('assertion failed: ' + what);
}

check('json', () => {
  const doc = JSON.parse('{"a":[1,2.5,null,true],"b":"\\u00e9"}');
  assert(doc.a[1] === 2.5 && doc.b === '\u00e9', 'parse');
  assert(JSON.stringify({b: 1, a: [1, 'x']}) === '{"b":1,"a":[1,"x"]}', 'stringify');
});
check('numbers', () => {
  assert(0.1 + 0.2 === 0.30000000000000004, 'double rounding');
  assert((1234.5678).toFixed(2) === '1234.57', 'toFixed');
  assert(2n ** 64n === 18446744073709551616n, 'BigInt');
  assert(Math.hypot(3, 4) === 5 && Number.isNaN(Math.sqrt(-1)), 'Math');
});
check('regexp', () => {
  const m = /(?<user>\w+)@(?<host>[\w.]+)/u.exec('ada@example.org');
  assert(m && m.groups.host === 'example.org', 'named groups');
  assert('a \t b\n c'.replace(/\s+/g, ' ') === 'a b c', 'replace');
});
check('strings_and_collections', () => {
  assert([3, 1, 2].sort().join() === '1,2,3', 'sort');
  assert(new Map([[1, 'a']]).get(1) === 'a' && new Set([1, 1, 2]).size === 2, 'Map/Set');
  assert('\u00e9'.normalize('NFD').length === 2, 'normalize');
  assert(new Uint8Array([1, 2, 3]).reduce((a, b) => a + b) === 6, 'typed arrays');
});
check('dates', () => {
  const d = new Date(Date.UTC(2024, 1, 28, 23, 30));
  assert(new Date(d.getTime() + 3600e3).toISOString() === '2024-02-29T00:30:00.000Z', 'leap day');
  assert(typeof Date.now() === 'number', 'Date.now');
});
check('classes_and_generators', () => {
  class A { #x = 1; get x() { return this.#x; } }
  function* g() { yield 1; yield 2; }
  assert(new A().x === 1 && [...g()].join() === '1,2', 'class fields, generators');
});
check('atomics_wait_throws', () => {
  try {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  } catch (e) {
    assert(e instanceof TypeError, 'TypeError');
    return;
  }
  throw new Error('Atomics.wait returned');
});

let asyncDone = false;
(async () => {
  const v = await Promise.all([1, Promise.resolve(2)]);
  asyncDone = v.join() === '1,2';
})();

import('os').then((os) => {
  check('promises', () => assert(asyncDone, 'async function finished'));
  check('exec_fails_cleanly', () => {
    try {
      os.exec(['/bin/true']);
    } catch (e) {
      return;
    }
    throw new Error('a process ran');
  });
  const failed = results.filter((r) => r[1] !== null);
  for (const [name, err] of results) print((err === null ? 'ok   ' : 'FAIL ') + name + (err ? ': ' + err : ''));
  print(`js: ${results.length - failed.length} passed, ${failed.length} failed`);
  if (failed.length) return import('std').then((std) => std.exit(1));
});
