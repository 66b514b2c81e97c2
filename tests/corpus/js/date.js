// Date from given timestamps, in UTC only: parts, ISO strings, arithmetic, parsing.
const d = new Date(Date.UTC(2024, 1, 28, 23, 30, 15, 250));
print(d.toISOString(), d.getTime(), d.getUTCDay(), d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
const next = new Date(d.getTime() + 36 * 3600 * 1000);
print(next.toISOString(), next.toUTCString(), JSON.stringify({ next }));
for (const ts of [0, 1e12, 1700000000000, -86400000, 253402300799999]) print(ts, new Date(ts).toISOString());
print(Date.UTC(2000, 0, 1), Date.UTC(1970, 0, 1, 0, 0, 0, 1), Date.UTC(2024, 12, 1) === Date.UTC(2025, 0, 1));
for (const s of ["2024-03-15", "2024-03-15T10:20:30Z", "2024-03-15T10:20:30.5+02:00", "not a date"]) {
  const t = Date.parse(s);
  print(JSON.stringify(s), Number.isNaN(t) ? "NaN" : new Date(t).toISOString());
}
const m = new Date(Date.UTC(2024, 0, 31));
m.setUTCMonth(1);
print(m.toISOString(), new Date(Date.UTC(2024, 2, 0)).getUTCDate(), new Date(Date.UTC(2023, 2, 0)).getUTCDate());
const days = (a, b) => Math.round((b - a) / 86400000);
print(days(Date.UTC(1990, 6, 14), Date.UTC(2024, 2, 15)), new Date(NaN).getTime(), String(new Date(NaN)));
const week = (t) => { const x = new Date(t); x.setUTCDate(x.getUTCDate() + 4 - (x.getUTCDay() || 7)); const y = Date.UTC(x.getUTCFullYear(), 0, 1); return Math.ceil(((x - y) / 86400000 + 1) / 7); };
print(week(Date.UTC(2024, 0, 1)), week(Date.UTC(2021, 0, 3)), week(Date.UTC(2024, 11, 30)));
