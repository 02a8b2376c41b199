import heapq
tasks = []
heapq.heappush(tasks, (2, "write"))
heapq.heappush(tasks, (1, "plan"))
heapq.heappush(tasks, (3, "ship"))
heapq.heappush(tasks, (1, "coffee"))
[heapq.heappop(tasks)[1] for _ in range(len(tasks))]
