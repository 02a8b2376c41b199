"""Curated ``typing``: the names LLM code annotates with.

Annotations are scrubbed before the guest runs, so these mostly matter for aliases
(``Vector = List[float]``), ``cast``, ``TypeVar``/``Generic`` and ``isinstance`` checks.
``get_type_hints`` is refused (it evaluates annotation text); ``overload`` is an identity
decorator (the host one records every overload in a process-wide registry);
``NamedTuple`` is a guest-safe class-syntax namedtuple (no exec). ``final`` and
``no_type_check`` are identities and ``runtime_checkable`` takes guest classes only (the host
ones set attributes on their argument); ``reveal_type`` is left out (it prints to host stderr).
"""

from __future__ import annotations

import typing
from typing import Any

from safe_eval.interpreter.identity import is_guest_class
from safe_eval.membrane.modules._typing_namedtuple import NamedTuple

NAMES = ["Any", "Callable", "ClassVar", "Final", "Generic", "Literal", "Optional", "Protocol",
         "Tuple", "Type", "TypeVar", "Union", "AbstractSet", "ByteString", "Container",
         "ContextManager", "Hashable", "ItemsView", "Iterable", "Iterator", "KeysView", "Mapping",
         "MappingView", "MutableMapping", "MutableSequence", "MutableSet", "Sequence", "Sized",
         "ValuesView", "Awaitable", "AsyncIterator", "AsyncIterable", "Coroutine", "Collection",
         "AsyncGenerator", "Reversible", "SupportsAbs", "SupportsFloat", "SupportsIndex",
         "SupportsInt", "SupportsRound", "ChainMap", "Counter", "Deque", "Dict", "DefaultDict",
         "List", "OrderedDict", "Set", "FrozenSet", "Generator", "TypedDict", "NoReturn", "Never",
         "Self", "LiteralString", "TypeAlias", "Annotated", "ParamSpec", "Concatenate",
         "TypeGuard", "Text", "AnyStr", "Pattern", "Match", "Iterable", "cast",
         "assert_never", "assert_type", "NewType", "Required", "NotRequired", "Unpack", "TypeVarTuple"]


def get_type_hints(obj: Any, globalns: Any = None, localns: Any = None, include_extras: bool = False) -> Any:
    raise TypeError("typing.get_type_hints is not available in safe-eval: "
                    "annotations are never evaluated")


def overload(func: Any) -> Any:
    return func


def final(arg: Any) -> Any:
    """Identity (the host one sets ``__final__`` on its argument, which may be a host class)."""
    return arg


def no_type_check(arg: Any) -> Any:
    """Identity (the host one sets attributes on the argument's functions)."""
    return arg


def runtime_checkable(cls: Any) -> Any:
    """``typing.runtime_checkable`` for guest protocol classes only (it sets a flag on cls)."""
    if not (isinstance(cls, type) and is_guest_class(cls)):
        raise TypeError("runtime_checkable() can only decorate classes defined in guest code")
    return typing.runtime_checkable(cls)


def build() -> dict[str, Any]:
    attrs: dict[str, Any] = {name: getattr(typing, name) for name in NAMES if hasattr(typing, name)}
    attrs.update(get_type_hints=get_type_hints, overload=overload, NamedTuple=NamedTuple, final=final,
                 no_type_check=no_type_check, runtime_checkable=runtime_checkable,
                 TYPE_CHECKING=False)
    return attrs
