# re on an input file: parse an access log, count by status, client and path.
import os
import re
from collections import Counter

INPUT = os.environ.get("AMPOULE_INPUT_DIR", "/input")
LINE = re.compile(r'^(?P<ip>\S+) \S+ \S+ \[(?P<when>[^\]]+)\] "(?P<method>[A-Z]+) (?P<path>\S+) [^"]+" '
                  r'(?P<status>\d{3}) (?P<bytes>\d+)$')
statuses, clients, paths = Counter(), Counter(), Counter()
total_bytes = 0
bad = []
with open(os.path.join(INPUT, "access.log")) as f:
    for number, line in enumerate(f, 1):
        m = LINE.match(line.rstrip("\n"))
        if not m:
            bad.append(number)
            continue
        statuses[m["status"]] += 1
        clients[m["ip"]] += 1
        paths[(m["method"], m["path"])] += 1
        total_bytes += int(m["bytes"])
print("statuses:", sorted(statuses.items()))
print("top clients:", clients.most_common(2))
print("paths:", sorted(paths.items(), key=lambda kv: (-kv[1], kv[0])))
print("bytes:", total_bytes, "unparsed lines:", bad)
errors = sum(n for s, n in statuses.items() if s.startswith(("4", "5")))
print(f"error rate: {errors / sum(statuses.values()):.1%}")
