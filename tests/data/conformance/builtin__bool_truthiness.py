class Empty:
    def __len__(self):
        return 0
class Falsy:
    def __bool__(self):
        return False
[bool(x) for x in (0, 0.0, 0j, "", [], (), {}, set(), None, Empty(), Falsy(), "0", [0], -1)]
