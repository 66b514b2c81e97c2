// Deep recursion in js.wasm ends in QuickJS's own catchable error (RangeError
// "Maximum call stack size exceeded", runtimes/quickjs/patches/0002;
// SyntaxError "stack overflow" from the parsers), never in a trap of the
// host. Each case recurses without bound. Prints one line per case and
// "N passed, N failed"; exits 1 on any failure.
const results = [];

function expect(name, fn) {
  try {
    fn();
    results.push([name, 'no error thrown']);
  } catch (e) {
    const ok = (e instanceof RangeError && e.message === 'Maximum call stack size exceeded') ||
        (e instanceof SyntaxError && /stack overflow/.test(e.message));
    results.push([name, ok ? null : String(e)]);
  }
}

const N = 200000;
function plain() { plain(); }
class Ctor { constructor() { new Ctor(); } }
expect('function calls', () => plain());
expect('constructor', () => new Ctor());
expect('getter', () => { const o = { get x() { return this.x; } }; return o.x; });
expect('toString', () => { const o = { toString() { return String(o); } }; return String(o); });
expect('Array.prototype.map callback', () => { const h = () => [0].map(h); h(); });
expect('generator', () => { function* g() { yield* g(); } g().next(); });
expect('JSON.parse arrays', () => JSON.parse('['.repeat(N) + ']'.repeat(N)));
expect('JSON.parse objects', () => JSON.parse('{"a":'.repeat(N) + '1' + '}'.repeat(N)));
expect('parser: nested arrays', () => eval('['.repeat(N) + ']'.repeat(N)));
expect('parser: parentheses', () => eval('('.repeat(N) + '1' + ')'.repeat(N)));
expect('parser: nested functions', () => eval('(function(){'.repeat(N / 10) + '})()'.repeat(N / 10)));
expect('regexp: nested groups', () => new RegExp('(?:'.repeat(N) + 'a' + ')'.repeat(N)));
expect('Array.prototype.toString', () => {
  const outer = []; let cur = outer;
  for (let i = 0; i < N; i++) { const n = []; cur.push(n); cur = n; }
  return String(outer);
});

const failed = results.filter((r) => r[1] !== null);
for (const [name, err] of results) print((err === null ? 'ok   ' : 'FAIL ') + name + (err ? ': ' + err : ''));
print(`js recursion: ${results.length - failed.length} passed, ${failed.length} failed`);
if (failed.length) import('std').then((std) => std.exit(1));
