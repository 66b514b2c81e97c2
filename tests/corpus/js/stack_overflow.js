// Unbounded recursion is a catchable RangeError, as in Node (runtimes/quickjs/patches/0002),
// and the program goes on after it.
const out = globalThis.print ?? console.log;
function down(n) { return down(n + 1) + 1; }
try { down(0); } catch (e) { out(e instanceof RangeError, e.name, e.message); }
class Node { constructor(next) { this.next = next; } depth() { return this.next ? this.next.depth() + 1 : 1; } }
let list = null;
for (let i = 0; i < 1000; i++) list = new Node(list);
out("a list of", list.depth(), "is fine");
const o = { get self() { return this.self; } };
try { o.self; } catch (e) { out(e.name); }
out("still running");
