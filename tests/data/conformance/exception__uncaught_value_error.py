def parse(s):
    return int(s)
parse("12")
parse("x12")
