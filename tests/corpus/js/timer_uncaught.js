// An exception thrown in a timer callback that nothing catches ends the
// program as an uncaught exception does: the error and its stack on stderr,
// exit status 1, no later timer runs.
console.log("start");
setTimeout(() => console.log("timer at 10 runs"), 10);
setTimeout(function failing() {
  throw new RangeError("thrown in a timer callback");
}, 20);
setTimeout(() => console.log("never printed"), 30);
Promise.resolve().then(() => console.log("microtask runs first"));
