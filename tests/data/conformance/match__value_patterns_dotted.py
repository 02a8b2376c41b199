class Color:
    RED = "red"
    GREEN = "green"
def m(c):
    match c:
        case Color.RED:
            return "stop"
        case Color.GREEN:
            return "go"
        case _:
            return "?"
[m(c) for c in ("red", "green", "blue")]
