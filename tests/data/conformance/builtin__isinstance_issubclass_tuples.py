class A: pass
class B(A): pass
(isinstance(B(), A), isinstance(1, (str, int)), isinstance(True, int), issubclass(B, A), issubclass(A, B), issubclass(bool, (int, str)), isinstance([], (tuple, list)), isinstance(None, type(None)))
