// A promise rejection that no handler has taken once the script and its
// microtasks have run ends the program, as in Node: exit status 1, before any
// timer fires.
console.log("start");
const late = Promise.reject(new Error("rejected with no handler"));
setTimeout(() => late.catch(() => console.log("too late to handle it")), 10);
setTimeout(() => console.log("never printed"), 20);
Promise.reject(new Error("handled in time")).catch((e) => console.log("handled:", e.message));
