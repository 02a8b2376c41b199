"""Tell the membrane which attributes of the host data types our modules hand out the guest
may read (``allowlists.allow_host_type``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def allow(cls: type, names: Iterable[str] | None = None) -> None:
    from safe_eval.membrane.allowlists import allow_host_type

    allow_host_type(cls, None if names is None else list(names))


def public_methods(cls: type, refused: Iterable[str] = ()) -> list[str]:
    skip = set(refused)
    return [n for n in dir(cls) if not n.startswith("_") and n not in skip]


# ``register`` on an ABC changes host-wide isinstance answers
ALWAYS_REFUSED = ("register",)


def allow_all(classes: Iterable[Any], refused: Iterable[str] = ()) -> None:
    """Allow the public names of each class and of the bases that define them (the membrane
    checks the class that defines a name), except ``refused``."""
    refused = (*refused, *ALWAYS_REFUSED)
    for cls in classes:
        for klass in cls.__mro__[:-1]:
            allow(klass, [n for n in public_methods(klass, refused) if n in klass.__dict__])
