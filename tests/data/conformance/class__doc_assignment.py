class A:
    __doc__ = "set by assignment"
    x = 1
class B(A):
    pass
(A.__doc__, A().__doc__, A.x)
