// std.exit: output so far is flushed and the status is the program's.
import * as std from "std";

print("about to exit with 3");
std.err.puts("error detail\n");
try {
  std.exit(3);
} finally {
  print("not reached: std.exit does not unwind");
}
