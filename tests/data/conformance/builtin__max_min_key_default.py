words = ["pear", "fig", "banana", "kiwi"]
(max(words, key=len), min(words, key=len), max(3, 7, 5), min([], default="none"), max([1, 3, 2], key=lambda v: -v), max("hello"), min((2, "b"), (2, "a")), max([], default=None))
