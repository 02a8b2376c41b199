class C:
    @property
    def x(self):
        return 1
c = C()
try:
    c.x = 2
except AttributeError as e:
    r = "cannot set"
(c.x, r)
