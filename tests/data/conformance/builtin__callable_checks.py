class C:
    def __call__(self):
        return 1
class D:
    pass
(callable(len), callable(C), callable(C()), callable(D()), callable(lambda: 0), callable(5), callable("s".upper))
