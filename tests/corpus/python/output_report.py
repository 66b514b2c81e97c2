# A report left as output files: JSON and CSV under /output, which leave
# the run as subjects of its receipt. (Run natively, where there is no
# /output, it writes to a temporary folder instead: the printed bytes are
# the same.)
import csv
import hashlib
import json
import os
import tempfile

out = "/output" if os.path.isdir("/output") else tempfile.mkdtemp()
os.makedirs(os.path.join(out, "tables"), exist_ok=True)
rows = [("apple", 3, "1.20"), ("pear", 5, "0.80"), ("plum, red", 2, "2.05")]
with open(os.path.join(out, "tables", "items.csv"), "w", newline="") as f:
    writer = csv.writer(f)
    writer.writerow(["name", "qty", "price"])
    writer.writerows(rows)
total = sum(q * float(p) for _, q, p in rows)
with open(os.path.join(out, "report.json"), "w") as f:
    json.dump({"items": len(rows), "total": f"{total:.2f}"}, f, sort_keys=True)
with open(os.path.join(out, "report.json"), "rb") as f:
    data = f.read()
print(data.decode())
print("sha256", hashlib.sha256(data).hexdigest()[:16])
for root, dirs, files in os.walk(out):
    dirs.sort()
    for name in sorted(files):
        path = os.path.join(root, name)
        print(os.path.relpath(path, out), os.path.getsize(path))
