def m(v):
    match v:
        case 0:
            return "zero"
        case 1 | 2 | 3:
            return "small"
        case "x" | "y":
            return "letter"
        case None:
            return "none"
        case True:
            return "true"
        case other:
            return f"other {other!r}"
[m(v) for v in (0, 2, "y", None, True, 9.5)]
