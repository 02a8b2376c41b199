out = []
for src in ([1, 2, 3], [1], "ab"):
    try:
        a, b = src
        out.append((a, b))
    except ValueError as e:
        out.append(str(e))
try:
    a, b, *c = [1]
except ValueError as e:
    out.append(str(e))
out
