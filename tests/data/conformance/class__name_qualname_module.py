class Outer:
    class Inner:
        def method(self):
            pass
    def m(self):
        pass
(Outer.__name__, Outer.Inner.__qualname__, Outer.Inner.method.__qualname__, Outer.m.__name__, Outer.__module__)
