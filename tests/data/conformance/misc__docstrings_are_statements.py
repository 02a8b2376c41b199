def f():
    """A docstring."""
    return 1
class C:
    """Class doc."""
    x = 1
(f(), C.x)
