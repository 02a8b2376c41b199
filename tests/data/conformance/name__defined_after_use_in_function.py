def f():
    return later()
def later():
    return "later"
f()
