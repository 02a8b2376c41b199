s = slice(1, 8, 2)
data = list(range(10))
(data[s], s.start, s.stop, s.step, s.indices(5), "abcdef"[slice(None, None, -1)], slice(3).stop)
