// The peer of bench/models.sh: the same N chat-completion calls, all in
// flight at once, sent straight to the mock model by Node's own HTTP client
// (no gate, no journal, no agent loop): what the calls cost a plain client.
//
//   node bench/models_peer.mjs PORT CALLS
//
// Prints one JSON line: {"completed","failed","duplicate_ids","cpu_s","peak_rss_mb","seconds"}.
import http from "node:http";

const [port, calls] = process.argv.slice(2).map(Number);
if (!port || !calls) {
  console.error("usage: node bench/models_peer.mjs PORT CALLS");
  process.exit(2);
}

// One connection per call, as the node's gate makes them (Connection: close).
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
const started = process.hrtime.bigint();
let completed = 0;
let failed = 0;
const ids = new Set();
let duplicateIds = 0;

function call(i) {
  const body = JSON.stringify({
    model: "mock-1",
    max_tokens: 4096,
    messages: [{ role: "user", content: JSON.stringify({ n: i }) }],
  });
  return new Promise((resolve) => {
    const request = http.request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/v1/chat/completions",
        agent,
        headers: {
          "Content-Type": "application/json",
          "Content-Length": Buffer.byteLength(body),
          Authorization: "Bearer bench-key",
          "Idempotency-Key": `peer/run-${String(i).padStart(5, "0")}/1`,
          Connection: "close",
        },
      },
      (response) => {
        const chunks = [];
        response.on("data", (c) => chunks.push(c));
        response.on("end", () => {
          try {
            const answer = JSON.parse(Buffer.concat(chunks).toString("utf8"));
            if (response.statusCode === 200 && answer.choices) {
              completed++;
              if (ids.has(answer.id)) duplicateIds++;
              ids.add(answer.id);
            } else {
              failed++;
            }
          } catch {
            failed++;
          }
          resolve();
        });
      },
    );
    request.on("error", () => {
      failed++;
      resolve();
    });
    request.setTimeout(120000, () => request.destroy(new Error("timeout")));
    request.end(body);
  });
}

await Promise.all(Array.from({ length: calls }, (_, i) => call(i + 1)));
const cpu = process.cpuUsage();
console.log(
  JSON.stringify({
    completed,
    failed,
    duplicate_ids: duplicateIds,
    cpu_s: (cpu.user + cpu.system) / 1e6,
    peak_rss_mb: process.resourceUsage().maxRSS / 1024,
    seconds: Number(process.hrtime.bigint() - started) / 1e9,
  }),
);
