items = [5, 3, 0, 7]
out = []
i = 0
while (v := items[i]) != 0:
    out.append(v)
    i += 1
(out, v, i)
