def gen():
    while True:
        try:
            yield "ok"
        except ValueError as e:
            yield f"handled {e}"
g = gen()
(next(g), g.throw(ValueError("bad")), next(g))
