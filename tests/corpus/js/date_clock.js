// Date and the clock: only what is the same in every run and in Node. The
// current time itself is not printed (a run's clock is virtual); how it
// behaves is: a number of whole milliseconds, never going back, advancing by
// at least a timer's delay while the timer waits, and agreeing with
// performance.now() and new Date().
const start = Date.now();
const perfStart = performance.now();
console.log(typeof start, Number.isInteger(start), start > Date.UTC(2020, 0, 1), new Date().getFullYear() >= 2024);
console.log(Math.abs(new Date().getTime() - Date.now()) < 1000, typeof perfStart, perfStart >= 0);
let previous = Date.now(), backwards = false;
for (let i = 0; i < 1000; i++) {
  const now = Date.now();
  if (now < previous) backwards = true;
  previous = now;
}
let perfPrevious = performance.now(), perfBackwards = false;
for (let i = 0; i < 1000; i++) {
  const now = performance.now();
  if (now < perfPrevious) perfBackwards = true;
  perfPrevious = now;
}
console.log("Date.now never goes back:", !backwards, "performance.now never goes back:", !perfBackwards);
const iso = new Date().toISOString();
console.log(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(iso), Date.parse(iso) <= Date.now());
const d = new Date(start);
console.log(d.getTime() === start, new Date(d) - d === 0, typeof d.getTimezoneOffset());
setTimeout(() => {
  const waited = Date.now() - start, perfWaited = performance.now() - perfStart;
  console.log("after a 100 ms timer: Date moved on at least 90 ms:", waited >= 90, "performance.now too:", perfWaited >= 90);
  const t0 = performance.now();
  setTimeout(() => {
    console.log("nested 250 ms timer: at least 240 ms later:", performance.now() - t0 >= 240);
  }, 250);
}, 100);
// Fixed dates are the same everywhere (UTC methods only: a run has no time zone data).
const fixed = new Date(Date.UTC(2000, 1, 29, 12, 0, 0));
console.log(fixed.toISOString(), fixed.getUTCDay(), new Date(fixed.getTime() + 86400000).toISOString().slice(0, 10));
console.log(new Date(8.64e15).toISOString(), new Date(8.64e15 + 1).getTime(), new Date(-8.64e15).toISOString());
console.log(Date.UTC(275760, 8, 13), Date.UTC(275760, 8, 13, 0, 0, 0, 1), new Date(2024, 0, 1, 0, 0, 0).getMonth());
console.log(new Date("2024-02-30T00:00:00Z").getTime(), Date.parse("2024-01-01T00:00:00.123456Z"), Date.parse("2024-06-01T12:00:00+05:30"));
console.log(new Date(Date.UTC(-1, 0, 1)).toISOString(), new Date(Date.UTC(99, 0, 1)).getUTCFullYear(), new Date(0).setUTCFullYear(99));
console.log(JSON.stringify({ epoch: new Date(0), parts: [new Date(1e12).getUTCHours(), new Date(1e12).getUTCMinutes()] }));
