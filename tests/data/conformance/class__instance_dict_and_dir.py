class P:
    a = 1
    def __init__(self):
        self.b = 2
p = P()
(p.__dict__, "a" in dir(p), "b" in dir(p), type(p).__name__, p.__class__ is P)
