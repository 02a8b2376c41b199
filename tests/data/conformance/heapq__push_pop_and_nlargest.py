import heapq
h = []
for v in [5, 1, 8, 3, 2]:
    heapq.heappush(h, v)
smallest = [heapq.heappop(h) for _ in range(2)]
data = [7, 2, 9, 4, 1]
heapq.heapify(data)
(smallest, data[0], heapq.nlargest(2, [7, 2, 9, 4]), heapq.nsmallest(2, ["bb", "a", "ccc"], key=len), heapq.heappushpop([1, 5], 3), list(heapq.merge([1, 4], [2, 3])))
