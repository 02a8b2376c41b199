(list(filter(None, [0, 1, "", "a", None, [], [0]])), list(filter(str.isdigit, "a1b2c3")), list(filter(lambda x: x % 3 == 0, range(10))))
