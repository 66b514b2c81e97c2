// quickjs-libc helpers: sprintf, parseExtJSON, scriptArgs, string output to stdout.
import * as std from "std";

print(std.sprintf("%5d|%-5s|%08.3f|%x|%c|%%", 42, "ab", Math.PI, 255, 65));
print(std.sprintf("%s and %d and %.2e", "text", 2 ** 31, 12345.678));
std.out.puts("puts without newline; ");
std.out.printf("printf %s %d\n", "works", 7);
std.printf("std.printf %03d\n", 5);
const ext = std.parseExtJSON("{a: 1, 'b': [1, 2,], /* comment */ c: 0x10, d: 'x'}");
print(JSON.stringify(ext), ext.d);
print(scriptArgs.length, scriptArgs[0].split("/").pop());
print(typeof std.loadFile, typeof std.open, typeof std.exit, std.SEEK_SET, std.SEEK_END);
print(std.strerror(std.Error.EINVAL), std.strerror(std.Error.EACCES));
std.out.flush();
