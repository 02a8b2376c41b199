class Temp:
    def __init__(self):
        self._c = 0
    def get_f(self):
        return self._c * 9 / 5 + 32
    def set_f(self, v):
        self._c = (v - 32) * 5 / 9
    f = property(get_f, set_f)
t = Temp()
t.f = 212
(t._c, t.f)
