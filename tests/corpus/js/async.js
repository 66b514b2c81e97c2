// Promises, async/await and timers: the order of jobs is fixed by the language.
// Timers and promise jobs are kept in separate phases: quickjs-libc checks its
// timers between promise jobs, and the guest's clock follows the work done,
// so mixing the two would tie the order to the engine's cost table.
import * as os from "os";

const log = [];
const sleep = (ms) => new Promise((resolve) => os.setTimeout(resolve, ms));

// Phase 1: promise jobs only.
Promise.resolve().then(() => log.push("microtask 1")).then(() => log.push("microtask 3"));
Promise.resolve().then(() => log.push("microtask 2"));
log.push("sync");
async function worker(name, steps) {
  for (let i = 0; i < steps; i++) { await null; log.push(`${name}${i}`); }
  return name.toUpperCase();
}
const results = await Promise.all([worker("a", 3), worker("b", 2)]);
log.push(results.join("+"));
const settled = await Promise.allSettled([Promise.reject(new Error("no")), 42, Promise.resolve("yes")]);
log.push(JSON.stringify(settled.map((s) => s.status + ":" + (s.value ?? s.reason.message))));
log.push(await Promise.any([Promise.reject(1), Promise.resolve("any")]));
try { await Promise.any([Promise.reject(1)]); } catch (e) { log.push(e.constructor.name + " " + e.errors.length); }

// Phase 2: timers only; they fire in deadline order.
os.setTimeout(() => log.push("timeout 200"), 200);
os.setTimeout(() => log.push("timeout 0"), 0);
os.setTimeout(() => log.push("timeout 100"), 100);
await sleep(400);
log.push(await Promise.race([sleep(300).then(() => "slow"), sleep(50).then(() => "fast")]));
print(log.join("\n"));
async function* ticker(n) { for (let i = 0; i < n; i++) { await sleep(1); yield i; } }
const ticks = [];
for await (const t of ticker(4)) ticks.push(t);
print("ticks", ticks.join(","));
