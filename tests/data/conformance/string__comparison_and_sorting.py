words = ["banana", "Apple", "cherry", "apple"]
(sorted(words), sorted(words, key=str.lower), "a" < "B", "abc" < "abd", "Z" < "a", max(words), min(words, key=len), sorted(words, key=lambda w: (len(w), w)))
