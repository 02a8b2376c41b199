"""Host callables that are refused even when the host itself hands them over as tools.

A tool runs host code with guest-chosen arguments: ``exec``/``eval``/``compile`` run guest
text as host code, ``open`` and everything in ``os``/``sys``/``subprocess``... touch the
machine, raw ``getattr``/``setattr``/``vars`` bypass the membrane, ``type`` and other metaclasses
build host classes with arbitrary dunders, ``types.FunctionType`` builds functions from code
objects, ``operator.attrgetter`` and ``string.Formatter`` walk attributes with raw ``getattr``.
``dangerous_callable(fn)`` says why ``fn`` is one of them ("" when it is not).
"""

from __future__ import annotations

import builtins
import functools
import operator
import string
import types
from typing import Any

from safe_eval.membrane.allowlists import HOST_TYPE_NAMES, is_dangerous_module

__all__ = ["dangerous_callable"]

_RAW_BUILTINS: dict[Any, str] = {
    getattr(builtins, n): n
    for n in """eval exec compile open __import__ breakpoint input getattr setattr delattr vars
    globals locals help exit quit memoryview print __build_class__ dir""".split()
    if hasattr(builtins, n)
}

_WALKERS: tuple[type, ...] = (operator.attrgetter, operator.methodcaller, string.Formatter)

# Slot wrappers / method descriptors of ``object`` and ``type`` that open the object model.
_HOOK_NAMES = frozenset(
    """__getattribute__ __setattr__ __delattr__ __subclasses__ mro __init_subclass__ __new__
    __reduce__ __reduce_ex__ __dir__ __class_getitem__ __set_name__""".split()
)

_DESCRIPTOR_TYPES = (
    types.WrapperDescriptorType,
    types.MethodWrapperType,
    types.MethodDescriptorType,
    types.ClassMethodDescriptorType,
)


def dangerous_callable(fn: Any, depth: int = 0) -> str:
    """Why ``fn`` must not become a tool, or "" when it may."""
    if depth > 5:
        return "it wraps callables too deeply"
    try:
        raw = _RAW_BUILTINS.get(fn)
    except TypeError:  # unhashable callable instance
        raw = None
    if raw is not None:
        return f"the builtin '{raw}' would bypass safe-eval"
    if isinstance(fn, type):
        return _dangerous_class(fn)
    if isinstance(fn, _WALKERS) or isinstance(getattr(fn, "__self__", None), _WALKERS):
        return "it reads attributes with the host's raw getattr"
    if isinstance(fn, functools.partial):
        return dangerous_callable(fn.func, depth + 1)
    if isinstance(fn, types.BuiltinFunctionType):
        owner = fn.__self__
        if owner is builtins:
            return ""  # the dangerous builtins were refused above; len, abs, sorted ... are fine
        if isinstance(owner, types.ModuleType):
            return _module_reason(owner.__name__)
        if fn.__name__ in _HOOK_NAMES:  # bound, as the descriptors below: ``object.__subclasses__``
            return f"'{fn.__name__}' opens the host object model"
        return "" if owner is None else _dangerous_owner(owner)
    if isinstance(fn, types.MethodType):
        owner = fn.__self__
        if isinstance(owner, types.ModuleType):
            return _module_reason(owner.__name__)
        return dangerous_callable(fn.__func__, depth + 1) or _dangerous_owner(owner)
    if isinstance(fn, types.FunctionType):
        return _module_reason(fn.__module__)
    if isinstance(fn, _DESCRIPTOR_TYPES):
        objclass = getattr(fn, "__objclass__", None)
        if fn.__name__ in _HOOK_NAMES or objclass is type:
            return f"'{fn.__name__}' opens the host object model"
        if isinstance(objclass, type) and objclass not in HOST_TYPE_NAMES:
            return _dangerous_class(objclass)
        return ""
    return _dangerous_class(type(fn))


def _module_reason(module: object) -> str:
    if is_dangerous_module(module):
        return f"functions of module '{module}' touch the host system or interpreter"
    return ""


def _dangerous_owner(owner: object) -> str:
    if isinstance(owner, type):
        return _dangerous_class(owner)
    return _dangerous_class(type(owner))


def _dangerous_class(cls: type) -> str:
    if cls is type or issubclass(cls, type):
        return "metaclasses build host classes with arbitrary hooks"
    if cls in HOST_TYPE_NAMES or cls is object:
        return ""
    if issubclass(cls, _WALKERS):
        return "it reads attributes with the host's raw getattr"
    module = getattr(cls, "__module__", "")  # C types keep it outside their __dict__
    if module == "builtins" and not issubclass(cls, BaseException):
        return f"the builtin type '{cls.__name__}' (function, code, frame ...) is not plain data"
    if is_dangerous_module(module):
        return f"class '{cls.__name__}' of module '{module}' touches the host system or interpreter"
    return ""
