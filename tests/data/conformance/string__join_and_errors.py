out = [",".join(["a", "b"]), "".join(c for c in "xyz"), "-".join("abc"), " ".join([])]
try:
    ",".join([1, 2])
except TypeError as e:
    out.append(str(e))
out
