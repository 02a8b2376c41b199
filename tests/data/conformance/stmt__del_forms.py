a = [0, 1, 2, 3, 4, 5]
del a[0]
del a[1:3]
d = {"x": 1, "y": 2}
del d["x"]
class O:
    pass
o = O()
o.v = 1
del o.v
x = 1
del x
try:
    x
except NameError as e:
    err = str(e)
(a, d, hasattr(o, "v"), err)
