"""A guest-safe ``namedtuple``: no ``exec``.

CPython's ``collections.namedtuple`` builds ``__new__`` by ``exec`` of generated text. Ours
builds the class from host closures generic over the field list; the class is marked as
guest-made, so ``_replace``/``_asdict``/``_fields`` are reachable from guest code (they
are the documented API) while it stays a real ``tuple`` subclass for host code.
"""

from __future__ import annotations

import keyword
import operator
from collections.abc import Iterable
from typing import Any

from safe_eval.interpreter.identity import register_guest_class


def _check_name(name: Any) -> None:
    if type(name) is not str:
        raise TypeError("Type names and field names must be strings")
    if not name.isidentifier():
        raise ValueError(f"Type names and field names must be valid identifiers: {name!r}")
    if keyword.iskeyword(name):
        raise ValueError(f"Type names and field names cannot be a keyword: {name!r}")


def _field_names(field_names: Any, rename: bool) -> list[str]:
    """CPython's validation and renaming rules, in its order (same messages)."""
    if isinstance(field_names, str):
        field_names = field_names.replace(",", " ").split()
    names = list(map(str, field_names))
    if rename:
        seen: set[str] = set()
        for i, name in enumerate(names):
            if (not name.isidentifier() or keyword.iskeyword(name) or name.startswith("_")
                    or name in seen):
                names[i] = f"_{i}"
            seen.add(name)
    for name in names:
        _check_name(name)
    seen = set()
    for name in names:
        if name.startswith("_") and not rename:
            raise ValueError(f"Field names cannot start with an underscore: {name!r}")
        if name in seen:
            raise ValueError(f"Encountered duplicate field name: {name!r}")
        seen.add(name)
    return names


def namedtuple(typename: str, field_names: Any, *, rename: bool = False,
               defaults: Iterable[Any] | None = None, module: Any = None) -> type:
    typename = str(typename)
    _check_name(typename)
    fields = tuple(_field_names(field_names, rename))
    defaults_t = tuple(defaults) if defaults is not None else ()
    if len(defaults_t) > len(fields):
        raise TypeError("Got more default values than field names")
    field_defaults = dict(zip(fields[len(fields) - len(defaults_t):], defaults_t, strict=True))
    nfields = len(fields)

    required = nfields - len(field_defaults)
    takes = f"{nfields + 1}" if required == nfields else f"from {required + 1} to {nfields + 1}"
    takes += " positional argument" + ("" if takes == "1" else "s")

    def __new__(cls: type, *args: Any, **kwargs: Any) -> Any:
        if len(args) > nfields:
            raise TypeError(f"{typename}.__new__() takes {takes} but {len(args) + 1} were given")
        for name in kwargs:
            if name not in fields:
                raise TypeError(f"{typename}.__new__() got an unexpected keyword argument '{name}'")
            if fields.index(name) < len(args):
                raise TypeError(f"{typename}.__new__() got multiple values for argument '{name}'")
        values = list(args)
        for name in fields[len(args):]:
            if name in kwargs:
                values.append(kwargs.pop(name))
            elif name in field_defaults:
                values.append(field_defaults[name])
            else:
                missing = [n for n in fields[len(values):] if n not in kwargs and n not in field_defaults]
                raise TypeError(f"{typename}.__new__() missing {len(missing)} required positional "
                                f"argument{'s' if len(missing) > 1 else ''}: "
                                + ", ".join(repr(n) for n in missing))
        return tuple.__new__(cls, values)

    def _make(cls: type, iterable: Iterable[Any]) -> Any:
        result: tuple[Any, ...] = tuple.__new__(cls, iterable)
        if len(result) != nfields:
            raise TypeError(f"Expected {nfields} arguments, got {len(result)}")
        return result

    def _replace(self: Any, /, **kwds: Any) -> Any:
        result = type(self)._make([kwds.pop(name, value) for name, value in zip(fields, self, strict=True)])
        if kwds:
            raise ValueError(f"Got unexpected field names: {list(kwds)!r}")
        return result

    def __repr__(self: Any) -> str:
        body = ", ".join(f"{name}={value!r}" for name, value in zip(fields, self, strict=True))
        return f"{type(self).__name__}({body})"

    def _asdict(self: Any) -> dict[str, Any]:
        return dict(zip(fields, self, strict=True))

    def __getnewargs__(self: Any) -> tuple[Any, ...]:
        return tuple(self)

    namespace: dict[str, Any] = {
        "__slots__": (),
        "__doc__": f"{typename}({', '.join(fields)})",
        "__new__": __new__,
        "_make": classmethod(_make),
        "_replace": _replace,
        "__repr__": __repr__,
        "_asdict": _asdict,
        "__getnewargs__": __getnewargs__,
        "_fields": fields,
        "_field_defaults": field_defaults,
        "__match_args__": fields,
        "__module__": "__main__" if module is None else str(module),
    }
    for index, name in enumerate(fields):
        namespace[name] = property(operator.itemgetter(index), doc=f"Alias for field number {index}")
    cls = type(typename, (tuple,), namespace)
    __new__.__qualname__ = f"{typename}.__new__"
    return register_guest_class(cls)
