([(i, j) for i in range(4) if i % 2 for j in range(i) if j], [[c for c in w if c in "aeiou"] for w in ("tree", "sky", "idea")])
