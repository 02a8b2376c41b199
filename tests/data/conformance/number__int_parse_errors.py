out = []
for s in ("12a", "", "1.5", "0x10"):
    try:
        int(s)
    except ValueError as e:
        out.append(str(e))
try:
    float("abc")
except ValueError as e:
    out.append(str(e))
out
