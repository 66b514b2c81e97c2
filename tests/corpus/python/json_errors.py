# json: decoding errors with positions, custom encoders and object hooks.
import json
from decimal import Decimal

bad_documents = ['{"a": 1,}', '[1, 2', '{"a" 1}', '"unterminated', 'nul', '{"a": 01}', '']
for text in bad_documents:
    try:
        json.loads(text)
    except json.JSONDecodeError as e:
        print(f"{text!r}: {e.msg} at line {e.lineno} column {e.colno} (pos {e.pos})")


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y


def encode(obj):
    if isinstance(obj, Point):
        return {"__point__": [obj.x, obj.y]}
    if isinstance(obj, set):
        return sorted(obj)
    raise TypeError(f"cannot encode {type(obj).__name__}")


def decode(d):
    if "__point__" in d:
        return Point(*d["__point__"])
    return d


text = json.dumps({"p": Point(1, 2), "s": {3, 1, 2}}, default=encode, sort_keys=True)
print(text)
obj = json.loads(text, object_hook=decode)
print(type(obj["p"]).__name__, obj["p"].x, obj["p"].y, obj["s"])
try:
    json.dumps({"c": complex(1, 2)}, default=encode)
except TypeError as e:
    print("TypeError:", e)
print(json.loads("[1.10, 2.50]", parse_float=Decimal))
print(json.loads('{"a": 1, "a": 2}'))
pairs = json.loads('{"b": 1, "a": 2, "b": 3}', object_pairs_hook=list)
print(pairs)
try:
    json.dumps(float("nan"), allow_nan=False)
except ValueError as e:
    print("ValueError:", e)
