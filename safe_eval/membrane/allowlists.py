"""The membrane's data: which host types the guest may use, which of their attributes it may
read, and which host values must never reach it.

Everything here is an allowlist except ``FORBIDDEN_VALUE_TYPES`` and ``DANGEROUS_MODULES``,
which name what the exit check refuses even when an allowed path would lead to it (defense in
depth: a curated module or a registered type that accidentally hands one out is still caught).
"""

from __future__ import annotations

import builtins
import collections
import functools
import re
import sys
import types
from collections.abc import Callable, Iterable

from safe_eval.membrane.dunders import DEFINABLE_DUNDERS

__all__ = [
    "ALL_PUBLIC",
    "CONDITIONAL_DUNDERS",
    "DANGEROUS_MODULES",
    "EXCEPTION_FIELDS",
    "FORBIDDEN_VALUE_TYPES",
    "HOST_TYPE_NAMES",
    "INTERNAL_PUBLIC",
    "PLAIN_SCALARS",
    "allow_host_type",
    "ensure_stdlib_types",
    "is_dangerous_module",
    "when_stdlib_types_registered",
]

# Marker: every public (non-underscore) attribute of the type is readable.
ALL_PUBLIC: frozenset[str] = frozenset({"*"})

# -- plain data -----------------------------------------------------------------------------
# Immutable leaves that carry no reference to anything else: they cross as they are.
PLAIN_SCALARS: frozenset[type] = frozenset(
    {type(None), bool, int, float, complex, str, bytes, range, type(Ellipsis), type(NotImplemented)}
)

# -- host types and their readable attributes ---------------------------------------------
# Public names the guest may read on instances of the type (and on the type object itself).
# ``str.format``/``format_map`` are in, but attributes.py swaps them for the safe formatter.
_DICT_VIEW_TYPES: tuple[type, ...] = (type({}.keys()), type({}.values()), type({}.items()))

HOST_TYPE_NAMES: dict[type, frozenset[str]] = {}

_BASE_TYPES: tuple[type, ...] = (
    str,
    bytes,
    bytearray,
    int,
    bool,
    float,
    complex,
    list,
    tuple,
    dict,
    set,
    frozenset,
    range,
    slice,
    type(None),
    object,
    property,
    staticmethod,
    classmethod,
    enumerate,
    zip,
    map,
    filter,
    reversed,
    *_DICT_VIEW_TYPES,
    # iterator types of the containers: nothing public, but they must be usable values
    type(iter("")),
    type(iter([])),
    type(iter(())),
    type(iter({})),
    type(iter(set())),
    type(iter(range(0))),
    type(iter(b"")),
    type(reversed([])),
    # collections, re, functools: plain data types (datetime, fractions, decimal, uuid: below)
    collections.Counter,
    collections.OrderedDict,
    collections.defaultdict,
    collections.deque,
    collections.ChainMap,
    re.Pattern,
    re.Match,
    functools.partial,
)

# Public names refused even on allowed types, with the reason.
_REFUSED_PUBLIC: dict[str, str] = {
    "mapping": "dict views: the underlying mapping may be a class namespace",
    "mro": "walks the class hierarchy",
    "with_traceback": "reaches host frames",
}


def allow_host_type(cls: type, names: Iterable[str] | None = None) -> None:
    """Let the guest use instances of the host type ``cls``: read ``names`` (default: every
    public attribute). Curated modules call this for the plain-data types they hand out."""
    if _stdlib_pending:
        ensure_stdlib_types()  # the base entries first, as if registered at import
    _register(cls, names)


def _register(cls: type, names: Iterable[str] | None) -> None:
    HOST_TYPE_NAMES[cls] = ALL_PUBLIC if names is None else frozenset(names) - _REFUSED_PUBLIC.keys()


# The plain-data types of datetime, fractions, decimal and uuid are registered like the base
# types, but only once one of those modules can matter: importing the four (uuid pulls in
# platform) costs about 5 ms of a cold start whose goal is 50 ms. An instance of one of these
# types can only reach the guest through the membrane's entry points, and each of them calls
# ``ensure_stdlib_types`` first: ``crossing`` entering any non-scalar value, the
# ``import_module`` facade, and ``allow_host_type`` (every curated module registering its
# types). Until then a lookup of these types simply misses, which is the deny side.
_STDLIB_TYPES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("datetime", ("date", "datetime", "time", "timedelta", "timezone", "tzinfo")),
    ("fractions", ("Fraction",)),
    ("decimal", ("Decimal", "Context")),
    ("uuid", ("UUID",)),
)
_stdlib_pending = True
# run by ensure_stdlib_types before the types are registered (readable): attributes.py adds the
# guarded methods of these types (``Decimal.as_integer_ratio``) here
_stdlib_hooks: list[Callable[[], None]] = []


def when_stdlib_types_registered(hook: Callable[[], None]) -> None:
    """Run ``hook`` once the stdlib types are about to be registered (now if they are), before
    any of them is readable by the guest."""
    if _stdlib_pending:
        _stdlib_hooks.append(hook)
    else:
        hook()


def ensure_stdlib_types() -> None:
    """Register the datetime/fractions/decimal/uuid plain-data types (once)."""
    global _stdlib_pending
    if not _stdlib_pending:
        return
    import importlib

    _stdlib_pending = False
    modules = [importlib.import_module(module_name) for module_name, _ in _STDLIB_TYPES]
    for hook in _stdlib_hooks:
        hook()
    for module, (_, names) in zip(modules, _STDLIB_TYPES, strict=True):
        for name in names:
            t = getattr(module, name)
            if t not in HOST_TYPE_NAMES:  # a curated module's narrower entry stays
                _register(t, [n for n in dir(t) if not n.startswith("_")])


for _t in _BASE_TYPES:
    _register(_t, [n for n in dir(_t) if not n.startswith("_")])
if any(name in sys.modules for name, _ in _STDLIB_TYPES):
    ensure_stdlib_types()  # the host already paid for the imports: register now

# -- exceptions ------------------------------------------------------------------------------
# Per exception class, the public fields that hold plain data (``AttributeError.obj``,
# ``ImportError.path`` and ``with_traceback`` are left out on purpose).
EXCEPTION_FIELDS: dict[type, frozenset[str]] = {
    BaseException: frozenset({"args", "add_note"}),
    StopIteration: frozenset({"value"}),
    StopAsyncIteration: frozenset({"value"}),
    OSError: frozenset({"errno", "strerror", "filename", "filename2"}),
    SyntaxError: frozenset({"msg", "lineno", "offset", "text", "filename", "end_lineno", "end_offset"}),
    # CPython defines the fields on each concrete class, not on UnicodeError
    UnicodeError: frozenset({"encoding", "object", "start", "end", "reason"}),
    UnicodeDecodeError: frozenset({"encoding", "object", "start", "end", "reason"}),
    UnicodeEncodeError: frozenset({"encoding", "object", "start", "end", "reason"}),
    UnicodeTranslateError: frozenset({"encoding", "object", "start", "end", "reason"}),
    AttributeError: frozenset({"name"}),
    NameError: frozenset({"name"}),
    ImportError: frozenset({"name", "msg"}),
    SystemExit: frozenset({"code"}),
}
if hasattr(builtins, "BaseExceptionGroup"):  # Python 3.11+
    EXCEPTION_FIELDS[builtins.BaseExceptionGroup] = frozenset(
        {"exceptions", "message", "derive", "split", "subgroup"}
    )

# -- dunders ------------------------------------------------------------------------------------
# Dunders readable on host TYPE objects and host functions: they yield plain strings.
TYPE_DUNDERS: frozenset[str] = frozenset({"__name__", "__qualname__", "__module__", "__doc__"})

# Dunders readable on exception instances (host or guest): chains of exceptions the guest saw.
EXCEPTION_DUNDERS: frozenset[str] = frozenset(
    {"__cause__", "__context__", "__suppress_context__", "__notes__"}
)

# Dunders readable on host objects only when the value they yield is guest-made (a guest
# bound method's ``__self__``/``__func__``, a staticmethod around a guest function ...).
CONDITIONAL_DUNDERS: frozenset[str] = frozenset({"__self__", "__func__", "__wrapped__"})

# Dunder methods readable on plain-data instances and allowed types (``(3).__add__``,
# ``dict.__getitem__``): slot wrappers bound to data. Attribute hooks are never handed out
# unbound (attributes.py substitutes a guarded ``object.__setattr__``).
# ``__format__`` of a host value is left out too: ``format()`` prices a host type's spec
# (``date.__format__('%c' * 10**7)``), the bound slot would not.
_HOOKS = frozenset({"__getattr__", "__setattr__", "__delattr__", "__init__", "__new__", "__post_init__",
                    "__format__"})
DATA_METHOD_DUNDERS: frozenset[str] = DEFINABLE_DUNDERS - _HOOKS

# Dunders readable on instances of guest-defined classes (besides DEFINABLE_DUNDERS, which
# resolve to the guest's own functions or to slot wrappers bound to the guest object).
GUEST_INSTANCE_DUNDERS: frozenset[str] = (
    DEFINABLE_DUNDERS | {"__class__", "__dict__", "__module__", "__doc__"} | EXCEPTION_DUNDERS
)

# Dunders readable on guest-defined classes.
GUEST_TYPE_DUNDERS: frozenset[str] = DEFINABLE_DUNDERS | {
    "__class__",
    "__name__",
    "__qualname__",
    "__module__",
    "__doc__",
    "__mro__",
    "__slots__",  # checked at class creation: a str or a tuple/list of plain str
}

# Guest-visible names of interpreter-made objects (guest functions, bound methods, generators,
# coroutines, async generators) when their class did not register its own list.
INTERNAL_PUBLIC: frozenset[str] = frozenset(
    """send throw close asend athrow aclose result done cancel cancelled exception
    add_done_callback remove_done_callback get_name set_name""".split()
)
INTERNAL_DUNDERS: frozenset[str] = frozenset(
    """__name__ __qualname__ __module__ __doc__ __wrapped__ __self__ __func__ __defaults__
    __kwdefaults__ __class__ __next__ __iter__ __await__ __aiter__ __anext__ __call__ __get__
    __enter__ __exit__ __aenter__ __aexit__""".split()
)

# -- what must never reach the guest ---------------------------------------------------------
FORBIDDEN_VALUE_TYPES: frozenset[type] = frozenset(
    {
        types.ModuleType,
        types.FrameType,
        types.CodeType,
        types.TracebackType,
        types.CellType,
        types.GeneratorType,
        types.CoroutineType,
        types.AsyncGeneratorType,
        types.MappingProxyType,
        types.GetSetDescriptorType,
        types.MemberDescriptorType,
        memoryview,
    }
)

# Modules whose functions and classes are refused even as tools, and whose objects are never
# handed to the guest, whatever path leads to them.
DANGEROUS_MODULES: frozenset[str] = frozenset(
    """os posix nt posixpath ntpath genericpath sys subprocess importlib ctypes _ctypes pickle _pickle
    copyreg marshal shutil socket _socket io _io pathlib builtins runpy code codeop pdb bdb inspect gc
    signal multiprocessing _multiprocessing threading _thread tempfile faulthandler types resource
    mmap select selectors asyncio pty tty fcntl termios glob fnmatch zipimport pkgutil site sysconfig
    platform webbrowser urllib http ftplib smtplib telnetlib xmlrpc ssl _posixsubprocess
    _signal _imp _frozen_importlib _frozen_importlib_external zipfile tarfile linecache tokenize
    dis traceback atexit warnings _warnings weakref _weakref ctypes.util concurrent sqlite3 dbm
    shelve logging _osx_support distutils setuptools pip ensurepip venv _sitebuiltins pydoc""".split()
)


def is_dangerous_module(module_name: object) -> bool:
    """True for a module name (or a dotted submodule) in ``DANGEROUS_MODULES``."""
    if not isinstance(module_name, str):
        return False
    return module_name in DANGEROUS_MODULES or module_name.split(".", 1)[0] in DANGEROUS_MODULES
