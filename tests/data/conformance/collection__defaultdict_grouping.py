from collections import defaultdict
words = ["apple", "avocado", "banana", "blueberry", "cherry"]
by_letter = defaultdict(list)
for w in words:
    by_letter[w[0]].append(w)
counts = defaultdict(int)
for w in words:
    counts[len(w)] += 1
(dict(by_letter), dict(counts), by_letter["z"], "z" in by_letter)
