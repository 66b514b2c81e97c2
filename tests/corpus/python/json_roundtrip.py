# json: dumps with sorting and indentation, round trips, floats and unicode.
import json

doc = {
    "name": "Ampoule",
    "version": [1, 2, 3],
    "ratio": 0.1 + 0.2,
    "big": 2 ** 70,
    "nested": {"z": None, "a": True, "m": [1.5, -0.0, 1e300, 1e-7]},
    "text": "caf\u00e9 \u2603 \U0001F600 \"quoted\" \\ tab\t",
}
compact = json.dumps(doc, sort_keys=True, separators=(",", ":"))
print(compact)
print(json.dumps(doc, sort_keys=True, indent=2, ensure_ascii=False))
back = json.loads(compact)
print(back == doc, type(back["big"]).__name__, back["ratio"])
print(json.dumps([float("inf"), float("-inf")]))
print(json.dumps({3: "int key", "2": "str key", 1.5: "float key", None: "null key", True: "bool key"}))
print(json.loads('[1, 2.0, "3", {"4": [5]}]'))
print(json.dumps("\x00\x1f\x7f\u2028"))
for text in ["1e400", "-0", "12345678901234567890", "0.1000000000000000055511151231257827"]:
    value = json.loads(text)
    print(text, "->", repr(value))
