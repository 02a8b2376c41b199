def m(v):
    match v:
        case bool(b):
            return f"bool {b}"
        case int(n) if n > 100:
            return "big int"
        case int(n):
            return f"int {n}"
        case str() as s:
            return f"str {s}"
        case [int(), *_]:
            return "int list"
        case float(x) | complex(x):
            return f"number {x}"
[m(v) for v in (True, 500, 7, "s", [1, "a"], 2.5, 1j)]
