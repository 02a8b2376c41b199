g = "module"
def outer():
    g = 1
    def mid():
        global g
        def inner():
            return g
        return inner()
    return mid(), g
outer()
