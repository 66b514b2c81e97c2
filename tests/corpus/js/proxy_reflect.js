// Proxy and Reflect: traps for get/set/has/delete/ownKeys/apply/construct,
// invariants, revocable proxies, and Reflect's counterparts of the operators.
const log = [];
const target = { a: 1, b: 2 };
const handler = {
  get(t, key, receiver) {
    log.push(`get ${String(key)}`);
    return key in t ? Reflect.get(t, key, receiver) : `missing:${String(key)}`;
  },
  set(t, key, value, receiver) {
    log.push(`set ${String(key)}=${value}`);
    if (typeof value !== "number") throw new TypeError(`${String(key)} must be a number`);
    return Reflect.set(t, key, value * 10, receiver);
  },
  has(t, key) {
    log.push(`has ${String(key)}`);
    return key.startsWith("_") ? false : Reflect.has(t, key);
  },
  deleteProperty(t, key) {
    log.push(`delete ${String(key)}`);
    return key === "a" ? false : Reflect.deleteProperty(t, key);
  },
  ownKeys(t) {
    log.push("ownKeys");
    return [...Reflect.ownKeys(t), "virtual"];
  },
  getOwnPropertyDescriptor(t, key) {
    log.push(`gopd ${String(key)}`);
    return key === "virtual" ? { value: "v", enumerable: true, configurable: true, writable: true } : Reflect.getOwnPropertyDescriptor(t, key);
  },
};
const p = new Proxy(target, handler);
console.log(p.a, p.zzz, "a" in p, "_a" in p);
p.c = 3;
try {
  p.d = "x";
} catch (e) {
  console.log(e.name, e.message);
}
console.log(target.c, delete p.b, delete p.a, "b" in target);
console.log(JSON.stringify(Object.keys(p)), JSON.stringify(p));
console.log(log.join(" | "));

// Function proxies: apply and construct.
const sum = (...xs) => xs.reduce((s, x) => s + x, 0);
const traced = new Proxy(sum, {
  apply(fn, thisArg, args) {
    return `sum(${args.join(",")}) = ${Reflect.apply(fn, thisArg, args)}`;
  },
});
console.log(traced(1, 2, 3), traced.call(null, 4), traced.apply(null, [5, 6]), typeof traced);
class Point {
  constructor(x, y) { this.x = x; this.y = y; }
}
const Checked = new Proxy(Point, {
  construct(C, args, newTarget) {
    if (args.some((v) => typeof v !== "number")) throw new TypeError("coordinates must be numbers");
    return Reflect.construct(C, args, newTarget);
  },
});
const pt = new Checked(1, 2);
console.log(pt instanceof Point, pt.x + pt.y);
try {
  new Checked(1, "2");
} catch (e) {
  console.log(e.message);
}

// Invariants: a non-configurable property cannot be reported otherwise.
const frozen = Object.freeze({ fixed: 1 });
const liar = new Proxy(frozen, { get: () => 2, has: () => false });
for (const attempt of [() => liar.fixed, () => "fixed" in liar]) {
  try {
    attempt();
    console.log("no error?!");
  } catch (e) {
    console.log(e.name);
  }
}

// Revocable proxies.
const { proxy, revoke } = Proxy.revocable({ v: 42 }, {});
console.log(proxy.v);
revoke();
try {
  proxy.v;
} catch (e) {
  console.log("after revoke:", e.name);
}

// A default-value object and a negative-index array, the classic uses.
const withDefault = (d) => new Proxy({}, { get: (t, k) => (k in t ? t[k] : d) });
const counts = withDefault(0);
for (const w of "a b a c a b".split(" ")) counts[w]++;
console.log(JSON.stringify(counts), counts.zzz);
const negative = (arr) => new Proxy(arr, { get: (t, k, r) => Reflect.get(t, typeof k === "string" && /^-\d+$/.test(k) ? String(t.length + Number(k)) : k, r) });
const arr = negative([10, 20, 30]);
console.log(arr[-1], arr[-3], arr[0], arr.length, Array.isArray(arr), arr.map((x) => x / 10).join(","));

// Reflect on its own.
const obj = {};
console.log(Reflect.defineProperty(obj, "k", { value: 1 }), Reflect.defineProperty(Object.freeze({}), "k", { value: 1 }));
console.log(JSON.stringify(Reflect.ownKeys({ b: 1, a: 2, 1: 3, [Symbol.iterator]: 0 }).map(String)));
console.log(Reflect.getPrototypeOf([]) === Array.prototype, Reflect.isExtensible(Object.preventExtensions({})), Reflect.has({ x: 1 }, "x"));
console.log(Reflect.apply(Math.max, null, [1, 5, 3]), Reflect.construct(Date, [0]).getTime(), Reflect.setPrototypeOf({}, null));
