(int(3.9), int(-3.9), int("42"), int(" 7 "), int("ff", 16), int("0b101", 0), int("1_000"), float("1e3"), float(" -2.5 "), round(2.675, 2), int(True))
