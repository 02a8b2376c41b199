class V:
    def __eq__(self, other):
        return True
try:
    hash(V())
except TypeError as e:
    r = str(e)
r
