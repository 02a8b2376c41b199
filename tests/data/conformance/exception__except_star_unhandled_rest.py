# requires: 3.11
try:
    try:
        raise ExceptionGroup("g", [KeyError("k"), OSError("o")])
    except* KeyError:
        pass
except ExceptionGroup as eg:
    r = (eg.message, [type(e).__name__ for e in eg.exceptions])
r
