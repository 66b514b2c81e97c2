// Classes: inheritance, private fields and methods, statics, accessors, iteration.
class Shape {
  static count = 0;
  #id;
  constructor(name) { this.name = name; this.#id = ++Shape.count; }
  get id() { return this.#id; }
  area() { throw new Error("abstract"); }
  toString() { return `${this.constructor.name}#${this.#id}(${this.name}, ${this.area().toFixed(2)})`; }
  static compare(a, b) { return a.area() - b.area(); }
}
class Rect extends Shape {
  #w; #h;
  constructor(w, h) { super("rect"); this.#w = w; this.#h = h; }
  area() { return this.#w * this.#h; }
  set width(v) { if (v <= 0) throw new RangeError("width must be positive"); this.#w = v; }
  static square(s) { return new this(s, s); }
  #secret() { return "hidden"; }
  reveal() { return this.#secret(); }
  static isRect(o) { return #w in o; }
}
class Circle extends Shape {
  constructor(r) { super("circle"); this.r = r; }
  area() { return Math.PI * this.r ** 2; }
}
const shapes = [new Rect(3, 4), new Circle(1), Rect.square(2)];
shapes.sort(Shape.compare);
print(shapes.join(" | "), Shape.count, shapes[0].id);
const r = shapes[2];
r.width = 10;
print(String(r), r.reveal(), Rect.isRect(r), Rect.isRect(shapes[0]), r instanceof Shape, Object.getPrototypeOf(Rect) === Shape);
try { r.width = -1; } catch (e) { print(e.name + ": " + e.message); }
try { new Shape("x").area(); } catch (e) { print(e.message); }
class Range {
  constructor(from, to) { this.from = from; this.to = to; }
  *[Symbol.iterator]() { for (let i = this.from; i < this.to; i++) yield i; }
}
print([...new Range(3, 8)].join(","), Array.from(new Range(0, 3), (x) => x * x).join(","));
const Mixin = (Base) => class extends Base { greet() { return `hello from ${this.name}`; } };
class Greeter extends Mixin(Shape) { area() { return 0; } }
print(new Greeter("mixin").greet(), typeof Greeter, Object.getOwnPropertyNames(Rect.prototype).join(","));
