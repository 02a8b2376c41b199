(True + True, True * 10, False - 1, sum([True, False, True]), True / 2, int(True), True == 1, isinstance(False, int), True & False, True ^ True)
