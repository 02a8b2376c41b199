"""The host classes guest classes may derive from, besides the builtin exceptions.

Each one was reviewed: subclassing runs only host code that reads the guest's class body
(ABCMeta collects abstract methods, EnumType turns attributes into members, Generic records
type parameters, our NamedTuple base builds an exec-free namedtuple).
"""

from __future__ import annotations

import abc
import collections
import collections.abc as cabc
import enum
import typing


def subclassable_classes() -> set[type]:
    from safe_eval.membrane.modules._typing_namedtuple import _NamedTupleBase
    from safe_eval.membrane.modules.collections_abc import NAMES as ABC_NAMES

    classes: set[type] = {abc.ABC, _NamedTupleBase, typing.Generic, typing.Protocol}
    classes |= {getattr(enum, n) for n in ("Enum", "IntEnum", "Flag", "IntFlag", "StrEnum", "ReprEnum")
                if hasattr(enum, n)}
    classes |= {collections.UserDict, collections.UserList, collections.UserString,
                collections.OrderedDict, collections.Counter, collections.defaultdict, collections.deque}
    classes |= {getattr(cabc, n) for n in ABC_NAMES if hasattr(cabc, n)}
    return classes
