def m(v):
    match v:
        case []:
            return "empty"
        case [x]:
            return f"one {x}"
        case [x, y]:
            return f"two {x} {y}"
        case [first, *rest] if len(rest) > 2:
            return f"long {first} +{len(rest)}"
        case [_, *_, last]:
            return f"last {last}"
        case _:
            return "not a sequence"
[m(v) for v in ([], [1], (1, 2), [1, 2, 3], list(range(6)), "str", {"k": 1})]
