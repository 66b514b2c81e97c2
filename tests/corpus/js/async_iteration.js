// Async iteration: async generators, for await over async and sync
// iterables, Symbol.asyncIterator by hand, return/throw and cleanup, and
// ordering against other microtasks and timers.
const log = (...args) => console.log(...args);
const sleep = (ms, v) => new Promise((resolve) => setTimeout(resolve, ms, v));

async function* countdown(from) {
  try {
    for (let i = from; i > 0; i--) {
      await sleep(5);
      yield i;
    }
    return "liftoff";
  } finally {
    log("countdown cleanup");
  }
}

async function* mapAsync(source, f) {
  for await (const x of source) yield f(x);
}

const customIterable = {
  [Symbol.asyncIterator]() {
    let i = 0;
    return {
      next: () => Promise.resolve(i < 3 ? { value: `custom ${i++}`, done: false } : { value: undefined, done: true }),
      return: () => {
        log("custom return called");
        return Promise.resolve({ done: true });
      },
    };
  },
};

(async () => {
  const seen = [];
  for await (const n of countdown(3)) seen.push(n);
  log("countdown:", seen.join(","));

  const it = countdown(5);
  log(JSON.stringify(await it.next()), JSON.stringify(await it.next()));
  log("early return:", JSON.stringify(await it.return("stopped")), JSON.stringify(await it.next()));

  for await (const x of mapAsync(countdown(2), (n) => n * 100)) log("mapped", x);

  for await (const v of [1, Promise.resolve(2), sleep(5, 3)]) log("sync iterable of promises:", v);

  for await (const c of customIterable) {
    log(c);
    if (c === "custom 1") break;
  }

  async function* failing() {
    yield "ok";
    throw new Error("generator failed");
  }
  try {
    for await (const v of failing()) log("got", v);
  } catch (e) {
    log("caught:", e.message);
  }

  const thrower = countdown(4);
  await thrower.next();
  try {
    await thrower.throw(new Error("thrown into the generator"));
  } catch (e) {
    log("throw():", e.message);
  }

  // Order: a generator's await against plain microtasks and a timer.
  const order = [];
  async function* ticker() {
    order.push("gen start");
    yield 1;
    order.push("gen resumed");
    yield 2;
  }
  setTimeout(() => order.push("timer"), 0);
  const g = ticker();
  const first = g.next();
  Promise.resolve().then(() => order.push("microtask"));
  order.push("sync after next()");
  await first;
  order.push("first settled");
  await g.next();
  order.push("second settled");
  await sleep(10);
  log(order.join(" > "));

  const results = await Promise.all([1, 2, 3].map(async (n) => {
    await sleep(30 - n * 10);
    return n * n;
  }));
  log("Promise.all keeps order:", results.join(","));
})();
