// A report left as an output file through quickjs-libc: /output/report.json
// leaves the run as a subject of its receipt. The printed lines read it back.
import * as std from "std";
import * as os from "os";

const report = { items: 3, total: "8.10", tags: ["a", "b"] };
const f = std.open("/output/report.json", "w");
f.puts(JSON.stringify(report));
f.close();
os.mkdir("/output/logs");
const log = std.open("/output/logs/run.txt", "w");
log.puts("line 1\nline 2\n");
log.close();
print(std.loadFile("/output/report.json"));
const [names] = os.readdir("/output");
print(JSON.stringify(names.filter((n) => !n.startsWith(".")).sort()));
print(os.stat("/output/logs/run.txt")[0].size);
