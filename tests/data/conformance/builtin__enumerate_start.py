(list(enumerate("abc")), list(enumerate("ab", start=1)), list(enumerate([], 5)), dict(enumerate("xy", 10)))
