out = []
for i in range(4):
    if i == 1:
        continue
    for j in range(4):
        if j == i:
            continue
        if j > 2:
            break
        out.append((i, j))
out
