// Scratch files through quickjs-libc: std.open for writing and appending,
// os.mkdir, os.rename, os.readdir, os.stat, os.remove, in /tmp.
import * as std from "std";
import * as os from "os";

function write(path, mode, text) {
  const f = std.open(path, mode);
  f.puts(text);
  f.close();
}

write("/tmp/a.txt", "w", "hello\n");
write("/tmp/a.txt", "a", "more\n");
print(JSON.stringify(std.loadFile("/tmp/a.txt")));
print("mkdir", os.mkdir("/tmp/sub", 0o755), os.mkdir("/tmp/sub", 0o755) === -std.Error.EEXIST);
print("rename", os.rename("/tmp/a.txt", "/tmp/sub/b.txt"));
const [names, err] = os.readdir("/tmp/sub");
print("readdir", err, JSON.stringify(names.filter((n) => n !== "." && n !== "..").sort()));
const [st] = os.stat("/tmp/sub/b.txt");
print("size", st.size, "file", (st.mode & os.S_IFMT) === os.S_IFREG);
const f = std.open("/tmp/sub/b.txt", "r+");
f.seek(0, std.SEEK_END);
f.puts("end\n");
f.seek(0, std.SEEK_SET);
print(JSON.stringify(f.readAsString()));
f.close();
print("remove dir with a file:", std.strerror(-os.remove("/tmp/sub")));
print("remove file", os.remove("/tmp/sub/b.txt"), "remove dir", os.remove("/tmp/sub"));
print("gone", os.stat("/tmp/sub")[1] === std.Error.ENOENT);
print("symlink", os.symlink("target.txt", "/tmp/link"), os.readlink("/tmp/link")[0]);
print("outside /tmp", std.open("/etc/passwd", "r") === null);
