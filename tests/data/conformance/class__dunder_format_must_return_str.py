class Bad:
    def __format__(self, spec):
        return 42
try:
    f"{Bad()}"
    r = "formatted"
except TypeError as e:
    r = str(e)
r
