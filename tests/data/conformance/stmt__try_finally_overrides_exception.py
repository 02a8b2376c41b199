def f():
    try:
        raise ValueError("lost")
    finally:
        return "finally wins"
def g():
    for i in range(3):
        try:
            if i == 1:
                break
        finally:
            last = i
    return last
(f(), g())
