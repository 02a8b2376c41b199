import re
kinds = []
for flags in ("bad", 1.5, None, [2]):
    try:
        re.search("h", "hello", flags)
        kinds.append("matched")
    except TypeError:
        kinds.append("TypeError")
(kinds, re.search("H", "hello", re.I).group(), re.search("h", "hello", 0).span())
