# SQLite on files: a database in a scratch folder with two connections (the
# second sees the first one's lock), a rollback, a backup, and a read-only
# database from the input folder.
import os
import shutil
import sqlite3
import tempfile

INPUT = os.environ.get("AMPOULE_INPUT_DIR", "/input")
work = tempfile.mkdtemp()
path = os.path.join(work, "ledger.db")

a = sqlite3.connect(path)
a.execute("CREATE TABLE entry (id INTEGER PRIMARY KEY, what TEXT, cents INTEGER)")
a.executemany("INSERT INTO entry (what, cents) VALUES (?, ?)",
              [(f"item {i}", i * 125) for i in range(1, 201)])
a.commit()
print("size", os.path.getsize(path), "pages", a.execute("PRAGMA page_count").fetchone()[0])

b = sqlite3.connect(path, timeout=0)
a.execute("INSERT INTO entry (what, cents) VALUES ('pending', 1)")  # a holds the write lock
try:
    b.execute("INSERT INTO entry (what, cents) VALUES ('other', 2)")
except sqlite3.OperationalError as e:
    print("second connection:", e)
print("b sees", b.execute("SELECT count(*) FROM entry").fetchone()[0], "rows before commit")
print("journal exists while writing:", os.path.exists(path + "-journal"))
a.rollback()
print("journal exists after rollback:", os.path.exists(path + "-journal"))
b.execute("INSERT INTO entry (what, cents) VALUES ('other', 2)")
b.commit()
print("a sees", a.execute("SELECT count(*), sum(cents) FROM entry").fetchone())

copy = sqlite3.connect(os.path.join(work, "copy.db"))
a.backup(copy)
copy.execute("DELETE FROM entry WHERE id % 2 = 0")
copy.commit()
copy.execute("VACUUM")
print("copy", copy.execute("SELECT count(*) FROM entry").fetchone()[0], "rows,",
      os.path.getsize(os.path.join(work, "copy.db")), "bytes after vacuum")
for c in (a, b, copy):
    c.close()
print(sorted(os.listdir(work)))

ro = sqlite3.connect("file:" + os.path.join(INPUT, "inventory.db") + "?mode=ro", uri=True)
for row in ro.execute("SELECT sku, name, qty FROM stock ORDER BY qty DESC, sku"):
    print(row)
try:
    ro.execute("DELETE FROM stock")
except sqlite3.OperationalError as e:
    print("read-only:", e)
ro.close()
shutil.rmtree(work)
