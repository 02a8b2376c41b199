data = [3, 8, 1, 9, 4]
big = [y for x in data if (y := x * 2) > 6]
running = 0
sums = [running := running + x for x in data]
(big, sums, y, running)
