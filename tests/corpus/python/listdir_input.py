# The input folder: list, stat and read every file (names sorted, sizes exact).
import glob
import hashlib
import os

INPUT = os.environ.get("AMPOULE_INPUT_DIR", "/input")
names = sorted(os.listdir(INPUT))
print(names)
for name in names:
    path = os.path.join(INPUT, name)
    with open(path, "rb") as f:
        data = f.read()
    lines = data.count(b"\n")
    print(f"{name:8} {os.path.getsize(path):4} {os.path.isfile(path)} {hashlib.sha256(data).hexdigest()[:12]} "
          f"{lines} lines")
print(sorted(os.path.basename(p) for p in glob.glob(os.path.join(INPUT, "*.txt"))))
print(sorted(e.name for e in os.scandir(INPUT) if e.is_file() and e.name.endswith((".json", ".csv"))))
print(os.path.exists(os.path.join(INPUT, "nope")), os.path.isdir(INPUT))
