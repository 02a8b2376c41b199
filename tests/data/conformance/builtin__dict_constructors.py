(dict(a=1, b=2), dict([("x", 1), ("y", 2)]), dict({"p": 0}, q=1), dict(zip("ab", [1, 2])), dict.fromkeys("xyz", 0), {}.fromkeys([1, 2]))
