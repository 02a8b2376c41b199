d = {"a": 1, "b": 2}
d.update(c=3)
d.update([("d", 4)])
v = d.setdefault("e", 5)
p = d.pop("a")
item = d.popitem()
(d, v, p, item, d.get("zz", 0), list(d.keys()), list(d.values()), d.copy() == d, "b" in d)
