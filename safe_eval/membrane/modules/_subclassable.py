"""The host classes guest classes may derive from, besides the builtin exceptions.

Each one was reviewed: subclassing runs only host code that reads the guest's class body
(ABCMeta collects abstract methods, EnumType turns attributes into members, Generic records
type parameters, our NamedTuple base builds an exec-free namedtuple).
"""

from __future__ import annotations

import abc
import collections
import collections.abc as cabc
import typing


def subclassable_classes() -> set[type]:
    from safe_eval.membrane.modules._typing_namedtuple import NamedTuple
    from safe_eval.membrane.modules.collections_abc import NAMES as ABC_NAMES
    from safe_eval.membrane.modules.enum import BASES as GUEST_ENUMS

    # ``class D(TypedDict)`` derives from typing's private base behind the function (its
    # metaclass makes a dict subclass whose "instances" are plain dicts)
    typed_dict_base = typing.TypedDict.__mro_entries__(())[0]  # type: ignore[attr-defined]
    classes: set[type] = {abc.ABC, NamedTuple, typing.Generic, typing.Protocol, typed_dict_base}
    classes |= set(GUEST_ENUMS)
    classes |= {collections.UserDict, collections.UserList, collections.UserString,
                collections.OrderedDict, collections.Counter, collections.defaultdict, collections.deque}
    classes |= {getattr(cabc, n) for n in ABC_NAMES if hasattr(cabc, n)}
    return classes
