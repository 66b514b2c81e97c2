# collections: Counter, defaultdict, OrderedDict, deque, namedtuple, ChainMap.
from collections import ChainMap, Counter, OrderedDict, defaultdict, deque, namedtuple

c = Counter("mississippi")
print(sorted(c.items()), c.most_common(2), c["z"], c.total())
c2 = Counter(a=3, b=1)
print(c + c2, c - Counter(s=2), c & Counter(s=10, i=1), +Counter(a=-1, b=2))
graph = defaultdict(list)
for a, b in [("a", "b"), ("a", "c"), ("b", "c"), ("c", "a"), ("d", "a")]:
    graph[a].append(b)
print(dict(graph), graph["zz"], len(graph))
od = OrderedDict.fromkeys("abcde")
od.move_to_end("b")
od.move_to_end("e", last=False)
print(list(od), od.popitem(), od.popitem(last=False))
d = deque(range(10), maxlen=7)
d.rotate(3)
d.appendleft(-1)
print(d, d.maxlen, d.count(5), list(reversed(d))[:3])
Point = namedtuple("Point", "x y z", defaults=[0])
p = Point(1, 2)
print(p, p._asdict(), p._replace(x=9), Point._fields, Point._make([4, 5, 6]))
defaults = {"color": "red", "size": "M"}
user = {"size": "L"}
cm = ChainMap(user, defaults)
print(cm["color"], cm["size"], sorted(cm.keys()), cm.new_child({"color": "blue"})["color"])
window, out = deque(maxlen=3), []
for x in [4, 8, 15, 16, 23, 42]:
    window.append(x)
    out.append(sum(window) / len(window))
print("moving averages", out)
