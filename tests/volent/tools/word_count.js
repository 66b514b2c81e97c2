// A JavaScript tool for the sealed tool calls (tests/volent/sealed_tools_test.py):
// the words of {"text": STRING}, counted, on the kernel's pinned QuickJS.
import * as std from "std";

const args = JSON.parse(std.in.readAsString());
const words = String(args.text ?? "").split(/\s+/).filter((w) => w.length > 0);
const counts = {};
for (const w of words) counts[w.toLowerCase()] = (counts[w.toLowerCase()] ?? 0) + 1;
console.log(JSON.stringify({ words: words.length, distinct: Object.keys(counts).length }));
