// Deep recursion is QuickJS's own catchable error, not an engine trap.
function down(n) { return down(n + 1) + 1; }
try {
  down(0);
} catch (e) {
  print("caught", e.name, e.message);
}
const deep = "[".repeat(100000) + "]".repeat(100000);
try {
  JSON.parse(deep);
  print("parsed");
} catch (e) {
  print("JSON.parse:", e.name, e.message);
}
print("still running");
