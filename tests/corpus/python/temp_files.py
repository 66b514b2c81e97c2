# Scratch files as agent code writes them: tempfile, open/append, rename,
# os.walk, shutil copy and rmtree, a named temporary file, csv through a
# file. Prints only names relative to the temporary folder.
import csv
import json
import os
import shutil
import tempfile

with tempfile.TemporaryDirectory() as d:
    p = os.path.join(d, "a.txt")
    with open(p, "w") as f:
        f.write("hello\n")
    with open(p, "a") as f:
        f.write("more\n")
    with open(p) as f:
        print(repr(f.read()))
    os.mkdir(os.path.join(d, "sub"))
    os.makedirs(os.path.join(d, "deep", "er", "est"))
    os.rename(p, os.path.join(d, "sub", "b.txt"))
    os.replace(os.path.join(d, "sub", "b.txt"), os.path.join(d, "sub", "c.txt"))
    for root, dirs, files in os.walk(d):
        dirs.sort()
        print(os.path.relpath(root, d), dirs, sorted(files))
    shutil.copy(os.path.join(d, "sub", "c.txt"), os.path.join(d, "copy.txt"))
    print("size", os.path.getsize(os.path.join(d, "copy.txt")))
    with tempfile.NamedTemporaryFile("w+", suffix=".json", dir=d) as t:
        json.dump({"k": [1, 2]}, t)
        t.flush()
        t.seek(0)
        print(json.load(t), os.path.exists(t.name))
    rows = [["name", "qty"], ["apple", "3"], ["pear, green", "5"]]
    with open(os.path.join(d, "table.csv"), "w", newline="") as f:
        csv.writer(f).writerows(rows)
    with open(os.path.join(d, "table.csv"), newline="") as f:
        print(list(csv.reader(f)) == rows)
    with open(os.path.join(d, "blob.bin"), "wb") as f:
        f.write(bytes(range(5)))
        f.seek(10)
        f.write(b"\xff")
    with open(os.path.join(d, "blob.bin"), "rb") as f:
        print(f.read())
    try:
        os.rmdir(os.path.join(d, "sub"))
    except OSError as e:
        print("rmdir:", type(e).__name__)
    try:
        open(os.path.join(d, "missing", "x"), "w")
    except OSError as e:
        print("open:", type(e).__name__)
    shutil.rmtree(os.path.join(d, "deep"))
    print(sorted(os.listdir(d)))
    fd, path = tempfile.mkstemp(dir=d)
    os.write(fd, b"raw")
    os.close(fd)
    print(os.path.getsize(path))
print("cleaned up:", not os.path.exists(d))
