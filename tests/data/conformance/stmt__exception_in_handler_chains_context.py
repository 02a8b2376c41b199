try:
    try:
        1 / 0
    except ZeroDivisionError:
        [][1]
except IndexError as e:
    r = (str(e), type(e.__context__).__name__, e.__cause__)
r
