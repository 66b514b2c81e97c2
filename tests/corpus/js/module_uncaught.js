// An uncaught error in a module is reported once (not again as the module's
// rejected promise), and ends the program: the rejections still pending then
// are not reported, as in Node. Exit status 1.
export const unused = 1;
const out = globalThis.print ?? console.log;
out("before");
Promise.reject(new Error("pending rejection"));
throw new Error("in module");
