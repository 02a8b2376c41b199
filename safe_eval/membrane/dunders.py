"""Which dunder methods a guest class may define (shared by the static restrict stage and the
interpreter's class creation, so the two can never disagree).

Everything not in ``DEFINABLE_DUNDERS`` is refused; ``FORBIDDEN_DUNDERS`` lists the ones we
refuse on purpose (hooks the host runs implicitly, or that open the object model), so the
diagnostic can say why.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from types import FunctionType
from typing import Any

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
    __copy__ __deepcopy__ __format__
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

# Class-dict dunders that are data, not hooks, each with the exact types its value may have
# (``type()``/metaclasses read some of them, and host code such as ``copyreg`` iterates
# ``__slots__``: a guest iterable there would run guest code at host time).
_DATA_DUNDER_TYPES: dict[str, tuple[type, ...]] = {
    "__module__": (str,),
    "__qualname__": (str,),
    "__doc__": (str, type(None)),
    "__annotations__": (dict,),
    "__slots__": (str, tuple, list),
    "__match_args__": (tuple,),
    "__orig_bases__": (tuple,),
    "__parameters__": (tuple,),
    "__type_params__": (tuple,),
    "__abstractmethods__": (frozenset,),
    "__static_attributes__": (tuple,),
    "__firstlineno__": (int,),
    "__protocol_attrs__": (set, frozenset),
    "__non_callable_proto_members__": (set, frozenset),
    # what typing's TypedDict metaclass records about the fields
    "__total__": (bool,),
    "__required_keys__": (frozenset,),
    "__optional_keys__": (frozenset,),
    "__readonly_keys__": (frozenset,),
    "__mutable_keys__": (frozenset,),
}
DATA_DUNDERS: frozenset[str] = frozenset(_DATA_DUNDER_TYPES)
# Slot names ``type()`` turns into its own descriptors rather than member descriptors.
_SLOT_DUNDERS = frozenset({"__dict__", "__weakref__"})
_GETSET = type(type.__dict__["__dict__"])
_MEMBER = type(type.__dict__["__dictoffset__"])


def _slot_names(value: object) -> tuple[object, ...]:
    return (value,) if type(value) is str else tuple(value)  # type: ignore[arg-type]


def namespace_refusal(key: object, value: object) -> str | None:
    """Why a class-body entry ``key = value`` may not be part of a guest class (None: it may).

    The static rule, applied to a namespace before the metaclass runs: dunder keys outside the
    reviewed set, and data dunders whose value is not of its exact reviewed type."""
    if isinstance(key, str) and type(key) is not str:
        return "class attribute names must be plain str"  # a subclass could hash like a dunder
    if not (type(key) is str and key.startswith("__") and key.endswith("__")):
        return None
    if key in DEFINABLE_DUNDERS:
        return None
    types = _DATA_DUNDER_TYPES.get(key)
    if types is None:
        return FORBIDDEN_DUNDERS.get(key, "not in the reviewed set of definable dunders")
    if type(value) not in types:
        return f"its value must be a {' or '.join(t.__name__ for t in types)}"
    if key == "__slots__":
        for slot in _slot_names(value):
            if type(slot) is not str:
                return "its entries must be str"
            if slot.startswith("__") and slot.endswith("__") and slot not in _SLOT_DUNDERS:
                return f"slot {slot} would install the dunder {slot} as a descriptor"
    if key == "__match_args__" and any(type(item) is not str for item in value):  # type: ignore[attr-defined]
        return "its entries must be str"
    return None


@cache
def _host_hooks() -> frozenset[object]:
    """Code objects of the forbidden hooks reviewed host metaclasses install themselves: the
    ``__subclasshook__`` ``typing.Protocol`` gives each protocol class (a new function each
    time, one code object; a ``classmethod`` around it from 3.12 on)."""
    import typing

    class _Probe(typing.Protocol):
        pass

    return frozenset({_hook_function(_Probe.__dict__["__subclasshook__"]).__code__})


def _hook_function(value: Any) -> Any:
    """The function behind a hook value: itself, or the one a ``classmethod`` wraps."""
    return value.__func__ if type(value) is classmethod else value


def _inherited(cls: type, key: str, value: object, is_guest: Callable[[type], bool]) -> bool:
    """``value`` is what a host base defines under ``key`` (a metaclass copying it down)."""
    return any(not is_guest(base) and base.__dict__.get(key, _MISSING) is value for base in cls.__mro__[1:])


_MISSING = object()


def finished_class_refusals(cls: type, is_guest: Callable[[type], bool]) -> dict[str, str]:
    """Every dunder in the finished class dict of ``cls`` (after ``type()`` and the metaclass
    ran) that is not a reviewed definition, with why. What CPython turns into type slots is
    the class dict, whatever built it: a slot member descriptor, a name a metaclass copied from
    a guest mapping, and a class-body entry count alike."""
    refused: dict[str, str] = {}
    for key, value in list(cls.__dict__.items()):
        if not (type(key) is str and key.startswith("__") and key.endswith("__")):
            why = namespace_refusal(key, value)
            if why is not None:
                refused[key] = why
            continue
        if type(value) is _MEMBER:  # made from a ``__slots__`` entry: a descriptor the slot dispatches to
            refused[key] = f"slot {key} would install the dunder {key} as a descriptor"
            continue
        if key in _SLOT_DUNDERS:
            if not (type(value) is _GETSET and value.__objclass__ is cls):
                refused[key] = "only type() may define it"
            continue
        why = namespace_refusal(key, value)
        if why is None:
            continue
        if key not in _DATA_DUNDER_TYPES and _inherited(cls, key, value, is_guest):
            continue
        if key == "__subclasshook__":
            hook = _hook_function(value)
            if type(hook) is FunctionType and hook.__code__ in _host_hooks():
                continue
        refused[key] = why
    return refused
