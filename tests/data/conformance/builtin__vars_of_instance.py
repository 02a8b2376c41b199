class P:
    def __init__(self):
        self.a = 1
        self.b = [2]
p = P()
v = vars(p)
(sorted(v.items()), p.__dict__ == v)
