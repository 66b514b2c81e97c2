# An in-memory SQLite database: schema, inserts, joins, aggregates, window
# functions, JSON, full-text search and user functions.
import sqlite3

db = sqlite3.connect(":memory:")
db.execute("PRAGMA foreign_keys = ON")
db.executescript("""
    CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, country TEXT);
    CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customer(id),
                         amount REAL, placed TEXT);
    CREATE INDEX orders_by_customer ON orders(customer_id);
""")
customers = [("Ada", "UK"), ("Grace", "US"), ("Linus", "FI"), ("Margaret", "US")]
db.executemany("INSERT INTO customer (name, country) VALUES (?, ?)", customers)
orders = [(1 + i % 4, round(10 + (i * 37 % 101) * 1.25, 2), f"2024-0{1 + i % 9}-{10 + i % 18}")
          for i in range(40)]
db.executemany("INSERT INTO orders (customer_id, amount, placed) VALUES (?, ?, ?)", orders)
db.commit()

for row in db.execute("""SELECT c.name, count(*), round(sum(o.amount), 2), min(o.placed)
                         FROM customer c JOIN orders o ON o.customer_id = c.id
                         GROUP BY c.id ORDER BY sum(o.amount) DESC"""):
    print(row)
for row in db.execute("""SELECT name, country, rank() OVER (PARTITION BY country ORDER BY name)
                         FROM customer ORDER BY country, name"""):
    print(row)
print(db.execute("SELECT json_object('n', count(*), 'max', max(amount)) FROM orders").fetchone()[0])
print(db.execute("SELECT strftime('%Y-%m', placed) AS m, count(*) FROM orders GROUP BY m LIMIT 3").fetchall())

try:
    db.execute("INSERT INTO orders (customer_id, amount) VALUES (99, 1.0)")
except sqlite3.IntegrityError as e:
    print("IntegrityError:", e)
try:
    db.execute("INSERT INTO customer (name) VALUES ('Ada')")
except sqlite3.IntegrityError as e:
    print("IntegrityError:", e)

db.execute("CREATE VIRTUAL TABLE notes USING fts5(title, body)")
db.executemany("INSERT INTO notes VALUES (?, ?)", [
    ("engine", "a deterministic WebAssembly interpreter with fuel"),
    ("receipts", "signed statements that anyone can verify and replay"),
    ("gate", "a trust gate checks every receipt before an action leaves"),
])
print(db.execute("SELECT title FROM notes WHERE notes MATCH 'receipt*' ORDER BY rank").fetchall())

db.create_function("shout", 1, lambda s: s.upper() + "!")
db.create_aggregate("product", 1, type("Product", (), {
    "__init__": lambda self: setattr(self, "p", 1),
    "step": lambda self, v: setattr(self, "p", self.p * v),
    "finalize": lambda self: self.p,
}))
print(db.execute("SELECT shout(name) FROM customer ORDER BY id").fetchall())
print(db.execute("SELECT product(id) FROM customer").fetchone())

db.row_factory = sqlite3.Row
row = db.execute("SELECT * FROM customer WHERE name = ?", ("Linus",)).fetchone()
print(dict(row), row.keys())
print(len(list(db.iterdump())), "dump lines")
print(sqlite3.paramstyle, sqlite3.apilevel)
