# heapq and bisect: priority queues, merging, top-n, sorted insertion, grading.
import bisect
import heapq

tasks = [(3, "write docs"), (1, "fix bug"), (4, "refactor"), (1, "deploy"), (2, "review"), (5, "lunch")]
heap = []
for order, (prio, name) in enumerate(tasks):
    heapq.heappush(heap, (prio, order, name))
print([heapq.heappop(heap)[2] for _ in range(len(heap))])
nums = [27, 3, 81, 9, 1, 243, 729, 54, 18, 6]
print(heapq.nlargest(3, nums), heapq.nsmallest(4, nums), heapq.nsmallest(2, tasks, key=lambda t: t[1]))
h = nums[:]
heapq.heapify(h)
print(h[0], heapq.heappushpop(h, 0), heapq.heapreplace(h, 1000), sorted(h))
print(list(heapq.merge([1, 4, 9], [2, 3, 10], [0, 5])), list(heapq.merge(["b", "d"], ["A", "c"], key=str.lower)))
grades = [60, 70, 80, 90]
print([("FDCBA")[bisect.bisect(grades, s)] for s in [33, 60, 69, 70, 89, 90, 100]])
a = []
for x in [5, 1, 4, 1, 5, 9, 2, 6, 5, 3]:
    bisect.insort(a, x)
print(a, bisect.bisect_left(a, 5), bisect.bisect_right(a, 5), bisect.bisect_left(a, 5, lo=6))
people = sorted([("carol", 35), ("alice", 30), ("bob", 25)], key=lambda p: p[1])
print(people[bisect.bisect_left(people, 30, key=lambda p: p[1])])


def dijkstra(graph, start):
    dist, pq = {start: 0}, [(0, start)]
    while pq:
        d, u = heapq.heappop(pq)
        if d > dist.get(u, float("inf")):
            continue
        for v, w in graph.get(u, []):
            if d + w < dist.get(v, float("inf")):
                dist[v] = d + w
                heapq.heappush(pq, (d + w, v))
    return dict(sorted(dist.items()))


print(dijkstra({"a": [("b", 7), ("c", 9), ("f", 14)], "b": [("c", 10), ("d", 15)], "c": [("d", 11), ("f", 2)],
                "d": [("e", 6)], "f": [("e", 9)]}, "a"))
