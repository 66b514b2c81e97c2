// Reading /input with the std module: whole files, line by line, and a missing file.
import * as std from "std";

const config = JSON.parse(std.loadFile("/input/config.json"));
const f = std.open("/input/sales.csv", "r");
const header = f.getline().split(",");
const totals = new Map();
let line, rows = 0;
while ((line = f.getline()) !== null) {
  if (!line) continue;
  const row = Object.fromEntries(line.split(",").map((v, i) => [header[i], v]));
  totals.set(row.region, (totals.get(row.region) || 0) + Math.round(row.units * row.unit_price * 100));
  rows++;
}
f.close();
print(rows, "rows,", header.length, "columns");
for (const [region, cents] of [...totals].sort()) {
  print(region.padEnd(6), (cents / 100).toFixed(2), config.currency, cents / 100 > config.threshold ? "big" : "small");
}
const whole = std.loadFile("/input/sales.csv");
print(whole.length, whole.split("\n").length, std.loadFile("/input/missing.txt"));
const err = {};
const g = std.open("/input/missing.txt", "r", err);
print(g, err.errno === std.Error.ENOENT, std.strerror(std.Error.ENOENT));
