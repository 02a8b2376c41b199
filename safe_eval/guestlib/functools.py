# Guest standard library: the parts of ``functools`` that read or write attributes of user
# objects (``total_ordering``, ``update_wrapper``, ``wraps``). Run by the safe-eval interpreter
# as guest code (see safe_eval/guestlib/__init__.py): setattr on a class or a function is the
# membrane's guarded setattr, so these decorators can do to an object exactly what the guest
# could do to it by hand. No host leaves.
#
# Divergence: a guest function's own ``__dict__`` is not readable by guest code, so
# ``update_wrapper`` copies the naming attributes and ``__wrapped__`` but not custom attributes.

WRAPPER_ASSIGNMENTS = ("__module__", "__name__", "__qualname__", "__doc__")
WRAPPER_UPDATES = ("__dict__",)


def update_wrapper(wrapper, wrapped, assigned=WRAPPER_ASSIGNMENTS, updated=WRAPPER_UPDATES):
    for attr in assigned:
        try:
            value = getattr(wrapped, attr)
        except AttributeError:
            continue
        setattr(wrapper, attr, value)
    for attr in updated:
        try:
            target = getattr(wrapper, attr)
        except AttributeError:
            continue  # a guest function's __dict__ is not readable (see the top)
        target.update(getattr(wrapped, attr, {}))
    wrapper.__wrapped__ = wrapped
    return wrapper


def wraps(wrapped, assigned=WRAPPER_ASSIGNMENTS, updated=WRAPPER_UPDATES):
    def decorate(wrapper):
        return update_wrapper(wrapper, wrapped, assigned, updated)

    return decorate


# root -> [(derived, root op result -> derived result)], CPython's table and formulas
_DERIVED = {
    "__lt__": ("__gt__", "__le__", "__ge__"),
    "__le__": ("__ge__", "__lt__", "__gt__"),
    "__gt__": ("__lt__", "__ge__", "__le__"),
    "__ge__": ("__le__", "__gt__", "__lt__"),
}


def _derive(root, name):
    # (a root b) -> (a name b): "and not equal", "or equal" or "not", as in CPython
    if (root, name) in (("__lt__", "__gt__"), ("__gt__", "__lt__")):
        def combine(result, self, other):
            return not result and self != other
    elif (root, name) in (("__lt__", "__le__"), ("__gt__", "__ge__")):
        def combine(result, self, other):
            return result or self == other
    elif (root, name) in (("__le__", "__ge__"), ("__ge__", "__le__")):
        def combine(result, self, other):
            return not result or self == other
    elif (root, name) in (("__le__", "__lt__"), ("__ge__", "__gt__")):
        def combine(result, self, other):
            return result and self != other
    else:
        def combine(result, self, other):
            return not result

    def method(self, other):
        result = getattr(type(self), root)(self, other)
        if result is NotImplemented:
            return result
        return combine(result, self, other)

    method.__name__ = name
    method.__qualname__ = name
    return method


def total_ordering(cls):
    roots = [op for op in _DERIVED if getattr(cls, op, None) is not getattr(object, op, None)]
    if not roots:
        raise ValueError("must define at least one ordering operation: < > <= >=")
    root = max(roots)
    for name in _DERIVED[root]:
        if name not in roots:
            setattr(cls, name, _derive(root, name))
    return cls
