// An uncaught exception: exit status 1, the error and its stack on stderr, earlier output kept.
function parse(record) {
  const [key, value] = record.split("=");
  const n = Number(value);
  if (Number.isNaN(n)) throw new TypeError(`bad value for ${key}: ${value}`);
  return [key, n];
}
print("parsing records");
for (const record of ["a=1", "b=2", "c=three"]) print(JSON.stringify(parse(record)));
print("never printed");
