class Suppress:
    def __init__(self, *types):
        self.types = types
        self.seen = None
    def __enter__(self):
        return self
    def __exit__(self, et, ev, tb):
        self.seen = et.__name__ if et else None
        return et is not None and issubclass(et, self.types)
with Suppress(KeyError) as s:
    {}["x"]
after = "continued"
try:
    with Suppress(KeyError) as s2:
        1 / 0
except ZeroDivisionError:
    after2 = "propagated"
(s.seen, after, s2.seen, after2)
