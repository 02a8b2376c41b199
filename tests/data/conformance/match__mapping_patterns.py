def m(v):
    match v:
        case {"type": "point", "x": x, "y": y}:
            return f"point {x},{y}"
        case {"type": "circle", **rest}:
            return f"circle {sorted(rest)}"
        case {}:
            return "some mapping"
        case _:
            return "no"
[m(v) for v in ({"type": "point", "x": 1, "y": 2, "z": 0}, {"type": "circle", "r": 2, "c": 0}, {"a": 1}, [1])]
