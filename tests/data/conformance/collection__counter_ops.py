from collections import Counter
c = Counter("mississippi")
d = Counter({"s": 1, "z": 2})
(c.most_common(2), c["s"], c["q"], sorted((c + d).items()), sorted((c - d).items()), sorted((c & d).items()), c.total(), sorted(c.elements())[:4])
