from collections import UserDict
from collections.abc import Mapping, MutableMapping


class Defaults(UserDict):
    def __missing__(self, key):
        return f"<{key}>"


d = UserDict({"a": 1}, b=2)
d["c"] = 3
d.update([("d", 4)], e=5)
out = [repr(d), len(d), d["a"], d.get("zz", 0), "a" in d, list(d), sorted(d.items())]
out.append((d.pop("e"), d.pop("missing", -1), d.setdefault("f", 6), d.setdefault("a", 0)))
del d["f"]
try:
    d["nope"]
except KeyError as e:
    out.append(("KeyError", e.args))
out.append((d == {"a": 1, "b": 2, "c": 3, "d": 4}, d != UserDict(), isinstance(d, MutableMapping),
            isinstance(d, Mapping), isinstance(d, dict)))
merged = d | {"z": 26}
out.append((type(merged).__name__, repr(merged), repr({"y": 25} | d)))
d |= {"g": 7}
c = d.copy()
c["h"] = 8
out.append(("h" in d, "h" in c, type(c).__name__))
out.append(repr(UserDict.fromkeys("xy", 0)))
dd = Defaults(k=1)
out.append((dd["k"], dd["q"], "q" in dd, dd.get("q")))
out.append((d.popitem(), len(d)))
d.clear()
out.append(repr(d))
out
