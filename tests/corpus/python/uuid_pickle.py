# uuid (name-based, so deterministic), pickle round trips and copy.
import copy
import hashlib
import pickle
import uuid

for name in ["example.com", "ampoule.dev"]:
    print(uuid.uuid3(uuid.NAMESPACE_DNS, name), uuid.uuid5(uuid.NAMESPACE_DNS, name))
u = uuid.UUID("12345678-1234-5678-1234-567812345678")
print(u.hex, u.int, u.version, u.variant, u.urn, uuid.UUID(bytes=u.bytes[::-1]))
data = {"ints": [0, 1, -1, 2 ** 31, 2 ** 63, -(2 ** 100)], "floats": [0.1, -0.0, 1e300], "text": "ünï",
        "bytes": b"\x00\xff", "tuple": (1, (2,)), "none": None, "set": frozenset([1])}
for protocol in range(0, pickle.HIGHEST_PROTOCOL + 1):
    blob = pickle.dumps(data, protocol=protocol)
    print(protocol, len(blob), hashlib.sha256(blob).hexdigest()[:16], pickle.loads(blob) == data)
nested = {"a": [1, [2, 3]], "b": {"c": [4]}}
shallow, deep = copy.copy(nested), copy.deepcopy(nested)
nested["a"][1].append(99)
print(shallow["a"], deep["a"], shallow is nested, deep == nested)
