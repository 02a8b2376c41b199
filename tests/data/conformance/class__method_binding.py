class C:
    def m(self, x):
        return (type(self).__name__, x)
c = C()
bound = c.m
unbound = C.m
(bound(1), unbound(c, 2), [c.m] == [c.m], C.m(C(), 3))
