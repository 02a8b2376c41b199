"""Small value classes without ``dataclasses``.

Why: the classes every evaluation touches (``Limits``, ``Policy``, ``Diagnostic``...) were
dataclasses, and creating a dataclass runs ``exec`` for each generated method (about half a
millisecond per class) after importing ``dataclasses`` itself (which imports ``inspect``):
together over ten milliseconds of every cold start. These bases give the same behaviour for
classes that write their own ``__init__`` and name their fields in ``_fields``:

- ``Shown``: the ``Cls(field=value, ...)`` ``__repr__`` a dataclass generates.
- ``Record``: ``Shown`` plus ``__eq__`` (same class, equal field tuples) and ``__hash__`` of
  the field tuple, as a dataclass with ``eq=True`` (and ``frozen=True``) generates.
- ``Frozen``: refuses ``setattr``/``delattr`` with ``FrozenInstanceError``, as
  ``@dataclass(frozen=True)`` does; the ``__init__`` assigns with ``object.__setattr__``.
"""

from __future__ import annotations

from typing import Any, ClassVar

__all__ = ["Frozen", "Record", "Shown"]


class Shown:
    __slots__ = ()
    # compared and hashed (by ``Record``), in order
    _fields: ClassVar[tuple[str, ...]] = ()
    # shown by repr (default: ``_fields``)
    _repr_fields: ClassVar[tuple[str, ...] | None] = None

    def __repr__(self) -> str:
        names = self._fields if self._repr_fields is None else self._repr_fields
        shown = ", ".join([f"{name}={getattr(self, name)!r}" for name in names])
        return f"{self.__class__.__qualname__}({shown})"


class Record(Shown):
    __slots__ = ()

    def _values(self) -> tuple[Any, ...]:
        return tuple([getattr(self, name) for name in self._fields])

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            assert isinstance(other, Record)
            return self._values() == other._values()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._values())


class Frozen:
    __slots__ = ()

    def __setattr__(self, name: str, value: Any) -> None:
        raise _frozen(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise _frozen(f"cannot delete field {name!r}")

    # copy/pickle: the default slot state would be restored with the refused setattr
    def __getstate__(self) -> tuple[Any, ...]:
        return tuple([getattr(self, name) for name in _slots(self.__class__)])

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        for name, value in zip(_slots(self.__class__), state, strict=True):
            object.__setattr__(self, name, value)


def _slots(cls: type) -> tuple[str, ...]:
    names: list[str] = []
    for klass in reversed(cls.__mro__):
        slots = klass.__dict__.get("__slots__", ())
        names.extend([slots] if isinstance(slots, str) else slots)
    return tuple([name for name in names if name not in ("__weakref__", "__dict__")])


def _frozen(message: str) -> AttributeError:
    # imported on the error path only: dataclasses is what the cold start avoids
    from dataclasses import FrozenInstanceError

    return FrozenInstanceError(message)
