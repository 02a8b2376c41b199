"""The guest's builtins (PLACEHOLDER: the membrane issue replaces this with guarded versions).

The interpreter adds the builtins that need it (``print``, ``super``, ``eval``, ``exec``,
``globals``-free ``type`` ...) on top of this table.
"""

from __future__ import annotations

import builtins as _b
from typing import Any

_SAFE = """abs all any ascii bin bool bytearray bytes callable chr complex dict divmod enumerate
filter float frozenset hash hex int isinstance issubclass iter len list map max min next object
oct ord pow property range repr reversed round set slice sorted staticmethod classmethod str sum
tuple zip format getattr hasattr setattr type id NotImplemented Ellipsis
BaseException Exception ArithmeticError AssertionError AttributeError EOFError
FloatingPointError GeneratorExit ImportError ModuleNotFoundError IndexError KeyError
KeyboardInterrupt LookupError MemoryError NameError NotImplementedError OSError OverflowError
RecursionError ReferenceError RuntimeError StopIteration StopAsyncIteration SyntaxError
SystemError TypeError UnboundLocalError UnicodeError UnicodeDecodeError UnicodeEncodeError
ValueError ZeroDivisionError Warning UserWarning DeprecationWarning""".split()

BUILTINS: dict[str, Any] = {name: getattr(_b, name) for name in _SAFE if hasattr(_b, name)}
