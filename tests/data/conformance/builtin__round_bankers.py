([round(x) for x in (0.5, 1.5, 2.5, -1.5, 2.6)], round(2.5, 0), round(0.125, 2), round(10 ** 20 + 0.5), type(round(2.5)), type(round(2.5, 1)))
