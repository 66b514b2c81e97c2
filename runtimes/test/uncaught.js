// js.wasm must report an uncaught error with its stack on stderr and exit 1.
function inner() { throw new RangeError('expected failure'); }
function outer() { inner(); }
outer();
