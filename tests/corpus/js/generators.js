// Generators and iterators: infinite streams, yield*, send values, return, destructuring.
function* naturals() { let n = 0; while (true) yield n++; }
function* take(it, n) { for (const x of it) { if (n-- <= 0) return; yield x; } }
function* map(it, f) { for (const x of it) yield f(x); }
function* filter(it, p) { for (const x of it) if (p(x)) yield x; }
print([...take(map(filter(naturals(), (x) => x % 3 === 0), (x) => x * x), 8)].join(" "));
function* averager() {
  let total = 0, count = 0, avg;
  while (true) {
    const v = yield avg;
    if (v === undefined) return count;
    total += v; count++; avg = total / count;
  }
}
function* delegate(out) { out.push(yield* averager()); }
const out = [];
const g = delegate(out);
g.next();
for (const v of [10, 20, 30, 45]) print("avg", g.next(v).value);
print(JSON.stringify(g.next()), out[0]);
function* tracked() { try { yield 1; yield 2; } finally { print("cleanup"); } }
const t = tracked();
print(t.next().value, JSON.stringify(t.return(99)), JSON.stringify(t.next()));
const [a, , b = "default", ...rest] = take(naturals(), 6);
print(a, b, rest.join(","));
const iter = { i: 0, next() { return this.i < 3 ? { value: this.i++, done: false } : { value: "end", done: true }; },
  [Symbol.iterator]() { return this; } };
print([...iter].join(","), Array.from({ length: 4 }, (_, k) => k * 2).join(","));
function* tree(node) { if (!node) return; yield* tree(node.l); yield node.v; yield* tree(node.r); }
const root = { v: 5, l: { v: 3, l: { v: 1 }, r: { v: 4 } }, r: { v: 8, r: { v: 9 } } };
print([...tree(root)].join(" "));
const entries = Object.entries({ b: 2, a: 1 });
for (const [k, v] of entries) print(k, v);
