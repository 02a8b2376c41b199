res = []
for i in range(2, 20):
    for j in range(2, i):
        if i % j == 0:
            break
    else:
        res.append(i)
res
