(all([]), any([]), all([1, "a", [0]]), any([0, "", None]), all(x > 0 for x in [1, 2]), any(x > 1 for x in [0, 1, 2]))
