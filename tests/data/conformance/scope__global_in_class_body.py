g = "module"
def outer():
    g = 1
    class C:
        global g
        h = g
        def m(self):
            return g
    return C.h, C().m()
outer()
