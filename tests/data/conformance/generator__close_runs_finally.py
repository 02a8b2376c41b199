log = []
def gen():
    try:
        yield 1
        yield 2
    finally:
        log.append("closed")
g = gen()
first = next(g)
g.close()
(first, log, list(g))
