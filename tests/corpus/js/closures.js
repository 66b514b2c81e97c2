// Closures and scopes: counters, var versus let in loops, currying, memoisation.
function makeCounter(start = 0) {
  let count = start;
  return { inc: (step = 1) => (count += step), get value() { return count; } };
}
const c1 = makeCounter(), c2 = makeCounter(100);
c1.inc(); c1.inc(); c1.inc(5);
print(c1.value, c2.inc(), c1.value);
var fns = [];
for (var i = 0; i < 3; i++) fns.push(() => i);
const lets = [];
for (let j = 0; j < 3; j++) lets.push(() => j);
print(fns.map((f) => f()).join(","), lets.map((f) => f()).join(","));
const curry = (f) => (a) => (b) => (c) => f(a, b, c);
print(curry((a, b, c) => a * b + c)(3)(4)(5));
function memoize(fn) {
  const cache = new Map();
  let misses = 0;
  const m = (n) => { if (!cache.has(n)) { misses++; cache.set(n, fn(n)); } return cache.get(n); };
  m.stats = () => `${cache.size} entries, ${misses} misses`;
  return m;
}
const fib = memoize((n) => (n < 2 ? BigInt(n) : fib(n - 1) + fib(n - 2)));
print(String(fib(150)), fib.stats());
const compose = (...fs) => (x) => fs.reduceRight((acc, f) => f(acc), x);
print(compose((s) => s + "!", (s) => s.toUpperCase(), (s) => s.trim())("  hi  "));
let x = "global";
function outer() { let x = "enclosing"; return (function () { return x; })(); }
print(outer(), x, typeof undeclared, (function () { return typeof this; })(), (() => typeof this)());
const once = (f) => { let done = false, r; return (...a) => (done ? r : ((done = true), (r = f(...a)))); };
const init = once((n) => n * 2);
print(init(21), init(100));
