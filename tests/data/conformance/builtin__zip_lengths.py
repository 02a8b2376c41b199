(list(zip("abc", [1, 2])), list(zip()), dict(zip(["a", "b"], range(2))), list(zip(*[(1, 2), (3, 4)])), list(zip("ab", "cd", "ef")))
