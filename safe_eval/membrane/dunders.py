"""Which dunder methods a guest class may define (shared by the static restrict stage and the
interpreter's class creation, so the two can never disagree).

Everything not in ``DEFINABLE_DUNDERS`` is refused; ``FORBIDDEN_DUNDERS`` lists the ones we
refuse on purpose (hooks the host runs implicitly, or that open the object model), so the
diagnostic can say why.
"""

from __future__ import annotations

DEFINABLE_DUNDERS: frozenset[str] = frozenset(
    """
    __init__ __new__ __repr__ __str__ __bytes__ __hash__ __bool__ __len__ __length_hint__
    __eq__ __ne__ __lt__ __le__ __gt__ __ge__
    __iter__ __next__ __reversed__ __contains__ __getitem__ __setitem__ __delitem__ __missing__
    __call__ __enter__ __exit__ __aenter__ __aexit__ __aiter__ __anext__ __await__
    __add__ __radd__ __iadd__ __sub__ __rsub__ __isub__ __mul__ __rmul__ __imul__
    __matmul__ __rmatmul__ __imatmul__ __truediv__ __rtruediv__ __itruediv__
    __floordiv__ __rfloordiv__ __ifloordiv__ __mod__ __rmod__ __imod__ __divmod__ __rdivmod__
    __pow__ __rpow__ __ipow__ __lshift__ __rlshift__ __ilshift__ __rshift__ __rrshift__ __irshift__
    __and__ __rand__ __iand__ __or__ __ror__ __ior__ __xor__ __rxor__ __ixor__
    __neg__ __pos__ __abs__ __invert__ __int__ __float__ __complex__ __index__ __round__
    __trunc__ __floor__ __ceil__ __getattr__ __setattr__ __delattr__ __post_init__
    __copy__ __deepcopy__
    """.split()
)

FORBIDDEN_DUNDERS: dict[str, str] = {
    "__del__": "runs at garbage collection, outside any budget",
    "__getattribute__": "intercepts every attribute access, including the interpreter's own",
    "__init_subclass__": "runs implicitly when a subclass is defined",
    "__set_name__": "runs implicitly at class creation",
    "__class_getitem__": "runs implicitly on subscription of the class",
    "__reduce__": "pickling hook: can name arbitrary host callables",
    "__reduce_ex__": "pickling hook: can name arbitrary host callables",
    "__format__": "not reviewed: format() and f-strings would run it with host-chosen specs",
    "__get__": "descriptor protocol hook: runs implicitly on attribute access of the owner",
    "__set__": "descriptor protocol hook",
    "__delete__": "descriptor protocol hook",
    "__prepare__": "metaclass hook",
    "__instancecheck__": "metaclass hook",
    "__subclasscheck__": "metaclass hook",
    "__subclasshook__": "runs implicitly inside isinstance/issubclass of abstract classes",
    "__getstate__": "pickling hook",
    "__setstate__": "pickling hook",
}
