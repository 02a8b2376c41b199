import itertools
def k1(a):
    return a
errors = []
for call in (lambda: getattr(), lambda: getattr(1), lambda: getattr(1, "a", 2, 3),
             lambda: hasattr(1), lambda: setattr(1, "a"), lambda: delattr(),
             lambda: sorted(key=len), lambda: sorted([1], [2]), lambda: list(**1),
             lambda: k1(1, 2, bad=3), lambda: k1(1, 2, a=3), lambda: k1(1, 2),
             lambda: k1(**{"a": 1}, a=2), lambda: itertools.cycle(), lambda: itertools.cycle([1], [2]),
             lambda: k1(**[1])):
    try:
        call()
        errors.append(None)
    except TypeError as e:
        errors.append(str(e))
errors
