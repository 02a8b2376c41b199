class C:
    def __init__(self):
        self.n = 1
c = C()
c.n += 5
d = {"k": [1]}
d["k"] += [2]
d["k"][0] *= 10
s = "ab"
s *= 2
t = (1,)
t += (2,)
x = 7
x //= 2
x **= 3
x %= 5
x <<= 2
x |= 1
x ^= 3
x &= 12
x >>= 1
(c.n, d, s, t, x)
