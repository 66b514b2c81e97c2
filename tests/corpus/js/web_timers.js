// Timers and microtasks in the order Node and browsers use: all microtasks
// (promise reactions, queueMicrotask) run before the next timer; timers fire
// by due time, then by creation order; a nested timer counts from when it is
// set; intervals repeat until cleared. Delays are far enough apart that the
// order never depends on how fast the program runs.
const log = (...args) => console.log(...args);

log("sync start");
setTimeout(() => log("timeout 200"), 200);
setTimeout(() => log("timeout 1 (first set)"), 1);
setTimeout(() => log("timeout 0 (a delay under 1 ms is 1 ms)"), 0);
setTimeout(() => log("timeout 100"), 100);
setTimeout((a, b, c) => log("arguments:", a, b, c), 50, "x", 42, undefined);
Promise.resolve().then(() => log("microtask 1")).then(() => log("microtask 3"));
queueMicrotask(() => log("microtask 2 (queueMicrotask)"));
(async () => {
  log("async function, before await");
  await null;
  log("async function, after await");
})();
log("sync end");

// Two timers due at once: the first one's microtasks run before the second.
setTimeout(() => {
  log("timeout 20a");
  Promise.resolve().then(() => log("  microtask queued by 20a"));
  queueMicrotask(() => log("  queueMicrotask from 20a"));
}, 20);
setTimeout(() => log("timeout 20b"), 20);

// Clearing: before it fires, from another timer's callback, and odd ids.
const cleared = setTimeout(() => log("never: cleared at once"), 30);
clearTimeout(cleared);
const victim = setTimeout(() => log("never: cleared by 60a"), 60);
setTimeout(() => {
  log("timeout 60a clears 60b");
  clearTimeout(victim);
}, 59);
clearTimeout(undefined);
clearTimeout(null);
clearTimeout(987654);
clearTimeout({});
log("ids differ:", cleared !== victim);

// Nested timers: each is set from the previous callback.
setTimeout(() => {
  log("outer at 70");
  setTimeout(() => {
    log("  inner set at 70 with 10 ms, before timeout 100");
    setTimeout(() => log("    innermost set at 80 with 0 ms"), 0);
  }, 10);
}, 70);

// An interval that stops itself after three runs, and one cleared by a timeout.
let ticks = 0;
const interval = setInterval((label) => {
  ticks++;
  log(`${label} ${ticks}`);
  if (ticks === 3) {
    clearInterval(interval);
    log("interval cleared itself");
  }
}, 300, "tick");
let beats = 0;
const heart = setInterval(() => beats++, 1000);
setTimeout(() => {
  clearInterval(heart);
  log("heartbeats before it was cleared:", beats);
}, 4500);

// Timers from promises, and promises from timers.
const sleep = (ms, value) => new Promise((resolve) => setTimeout(resolve, ms, value));
(async () => {
  const first = await sleep(2000, "slept 2000");
  log(first);
  const results = await Promise.all([sleep(300, "a"), sleep(100, "b"), sleep(200, "c")]);
  log("Promise.all of sleeps:", results.join(","));
  log("race:", await Promise.race([sleep(200, "slow"), sleep(50, "fast")]));
  queueMicrotask(() => log("microtask after the race"));
  setTimeout(() => log("last timeout"), 10);
})();

// Errors in callbacks are the program's to catch.
setTimeout(() => {
  try {
    throw new Error("caught inside a timer");
  } catch (e) {
    log("caught:", e.message);
  }
}, 150);
try {
  setTimeout("code strings are not evaluated");
} catch (e) {
  log(e.name);
}
try {
  queueMicrotask(42);
} catch (e) {
  log(e.name);
}
log(typeof setInterval, typeof clearInterval, typeof queueMicrotask);
