(list(map(pow, [2, 3, 4], [3, 2])), list(map(str.upper, "ab")), list(map(lambda a, b, c: a + b + c, "ab", "cd", "ef")), list(map(len, ["", "x"])))
