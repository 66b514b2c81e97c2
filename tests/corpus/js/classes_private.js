// Classes beyond classes.js: private static members, private accessors,
// brand checks with `#x in obj`, errors on foreign objects, static blocks,
// class fields with computed names and arrow functions, accessors and
// inheritance of statics, new.target, and Symbol.species.
class Counter {
  static #instances = 0;
  static #registry = new Map();
  #count = 0;
  #step;
  static {
    Counter.created = "by a static block";
  }
  constructor(name, step = 1) {
    this.name = name;
    this.#step = step;
    Counter.#instances++;
    Counter.#registry.set(name, this);
  }
  get #next() { return this.#count + this.#step; }
  set #value(v) {
    if (v < 0) throw new RangeError("negative");
    this.#count = v;
  }
  increment() { this.#value = this.#next; return this; }
  reset(to = 0) { this.#value = to; return this; }
  get count() { return this.#count; }
  static get instances() { return Counter.#instances; }
  static lookup(name) { return Counter.#registry.get(name); }
  static isCounter(x) { return #count in x; }
  static #secret() { return "static private method"; }
  static reveal() { return Counter.#secret(); }
  equals(other) { return this.#count === other.#count; }
}
const a = new Counter("a").increment().increment();
const b = new Counter("b", 5).increment();
console.log(a.count, b.count, Counter.instances, Counter.lookup("b") === b, Counter.created, Counter.reveal());
console.log(Counter.isCounter(a), Counter.isCounter({}), Counter.isCounter(Object.create(a)));
try {
  a.reset(-1);
} catch (e) {
  console.log(e.name, e.message, a.count);
}
for (const attempt of [() => a.equals({}), () => Counter.prototype.increment.call({}), () => Object.getOwnPropertyDescriptor(Counter.prototype, "count").get.call({})]) {
  try {
    attempt();
    console.log("no error?!");
  } catch (e) {
    console.log(e.name);
  }
}
console.log(JSON.stringify(a), Object.keys(a).join(","), Object.getOwnPropertyNames(Counter).sort().join(","));

const key = "dynamic";
class Fields {
  [key] = "computed field";
  [`${key}Method`]() { return "computed method"; }
  arrow = () => this.constructor.name;
  static shared = [];
  counter = Fields.shared.push(this.constructor.name);
}
class SubFields extends Fields {
  extra = this.dynamic.toUpperCase();
}
const f = new SubFields();
const { arrow } = f;
console.log(f.dynamic, f.dynamicMethod(), arrow(), f.extra, Fields.shared.join(","), SubFields.shared === Fields.shared);

class Base {
  constructor() { this.made = new.target.name; }
  static create() { return new this(); }
  whoami() { return "base"; }
}
class Derived extends Base {
  whoami() { return `derived, over ${super.whoami()}`; }
}
console.log(Derived.create().made, Derived.create() instanceof Derived, new Derived().whoami());
function Plain() { return new.target === undefined ? "called" : "constructed"; }
console.log(Plain(), typeof new Plain());
try {
  Base();
} catch (e) {
  console.log(e.name);
}

class Stack extends Array {
  static get [Symbol.species]() { return Array; }
  peek() { return this[this.length - 1]; }
}
const s = Stack.from([1, 2, 3]);
const mapped = s.map((x) => x * 2);
console.log(s instanceof Stack, s.peek(), mapped instanceof Stack, mapped instanceof Array, s.length);

class Temperature {
  static #fromCelsius = (c) => Object.assign(new Temperature(), { c });
  static of(c) { return Temperature.#fromCelsius(c); }
  get f() { return this.c * 9 / 5 + 32; }
  set f(v) { this.c = (v - 32) * 5 / 9; }
  [Symbol.toPrimitive](hint) { return hint === "string" ? `${this.c}°C` : this.c; }
}
const t = Temperature.of(100);
console.log(t.f, `${t}`, t + 1, t > 50);
t.f = 32;
console.log(t.c, String(t));
