log = []
def f(tag, v):
    log.append(tag)
    return v
r = f("a", 1) if f("cond", False) else f("b", 2)
(r, log)
