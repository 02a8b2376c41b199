"""The guest's builtins.

Three groups, merged into ``BUILTINS`` once at import:

1. harmless host builtins handed out as they are (``len``, ``range``, the container types,
   the standard exception classes ...);
2. guarded versions written here: ``getattr``/``setattr``/``delattr``/``hasattr``/``vars``/``dir``
   through the membrane's attribute rules, one-argument ``type``, ``super`` of guest classes,
   ``print`` into the captured output, and ``eval``/``exec``,
   which run their string through safe-eval itself (``current_context().run_nested``);
3. engineer 5's ``GUARDED_BUILTINS`` (size- and work-checked ``sum``, ``sorted``, ``min`` ...),
   which replace any entry of the same name.

Never provided: ``compile``, ``open``, ``__import__``, ``globals``, ``locals``, ``breakpoint``,
``input``, ``help``, ``memoryview``, ``exit``/``quit``. ``SystemExit``/``KeyboardInterrupt`` are
provided (guest code raises and catches them): one the guest raised leaves a run as a
``GuestError`` like any uncaught guest exception (``session.to_api_error``), never as the host
exception that would stop a host catching only ``Exception``. ``vars()`` and ``dir()``
without an argument (they would expose the interpreter's scope) raise ``TypeError``.
"""

from __future__ import annotations

import builtins as _b
from types import BuiltinFunctionType, FunctionType
from typing import Any

from safe_eval.context import current_context
from safe_eval.interpreter.identity import is_guest_class
from safe_eval.limits.guards import GUARDED_BUILTINS, g_text, recursion_guard, show_as
from safe_eval.membrane.admission import register_guest_visible
from safe_eval.membrane.allowlists import GUEST_INSTANCE_DUNDERS, GUEST_TYPE_DUNDERS
from safe_eval.membrane.attributes import del_attr, get_attr, readable, set_attr
from safe_eval.membrane.stored import method_value
from safe_eval.membrane.typeview import GUARDED_TYPE

__all__ = ["BUILTINS", "builtin_names"]

_RAW = """abs all any ascii bin bool bytearray bytes callable chr complex dict divmod enumerate
filter float frozenset hash hex id int isinstance issubclass iter len list map max min next object
oct ord pow property range repr reversed round set slice sorted staticmethod classmethod str sum
tuple zip NotImplemented Ellipsis""".split()

_EXCEPTIONS = """BaseException Exception ArithmeticError AssertionError AttributeError BufferError
EOFError FloatingPointError GeneratorExit ImportError ModuleNotFoundError IndexError KeyError
LookupError MemoryError NameError NotImplementedError OSError OverflowError RecursionError
ReferenceError RuntimeError StopIteration StopAsyncIteration SyntaxError IndentationError TabError
SystemError TypeError UnboundLocalError UnicodeError UnicodeDecodeError UnicodeEncodeError
UnicodeTranslateError ValueError ZeroDivisionError EnvironmentError IOError LookupError
ConnectionError BrokenPipeError ConnectionAbortedError ConnectionRefusedError ConnectionResetError
FileExistsError FileNotFoundError InterruptedError IsADirectoryError NotADirectoryError
PermissionError ProcessLookupError TimeoutError ChildProcessError BlockingIOError
BaseExceptionGroup ExceptionGroup Warning UserWarning DeprecationWarning PendingDeprecationWarning
SyntaxWarning RuntimeWarning FutureWarning ImportWarning UnicodeWarning BytesWarning
ResourceWarning EncodingWarning SystemExit KeyboardInterrupt""".split()

# -- attribute builtins ---------------------------------------------------------------------------
def _arity(name: str, args: tuple[Any, ...], least: int, most: int) -> None:
    """CPython's own TypeError for a builtin taking ``least``..``most`` positional arguments."""
    n = len(args)
    if least <= n <= most:
        return
    if least == most:
        raise TypeError(f"{name} expected {least} argument{'s' if least > 1 else ''}, got {n}")
    bound = f"at least {least}" if n < least else f"at most {most}"
    raise TypeError(f"{name} expected {bound} arguments, got {n}")


def _attr_name(name: Any) -> None:
    if not isinstance(name, str):
        raise TypeError(f"attribute name must be string, not '{type(name).__name__}'")


def guest_getattr(*args: Any) -> Any:
    _arity("getattr", args, 2, 3)
    obj, name = args[0], args[1]
    _attr_name(name)
    try:
        value = get_attr(obj, name)
    except AttributeError:
        if len(args) == 2:
            raise
        return args[2]
    return method_value(value)  # a value, as ``obj.name`` not called at once (stored.py)


def guest_hasattr(*args: Any) -> bool:
    _arity("hasattr", args, 2, 2)
    obj, name = args
    _attr_name(name)
    try:
        get_attr(obj, name)
    except AttributeError:
        return False
    return True


def guest_setattr(*args: Any) -> None:
    _arity("setattr", args, 3, 3)
    obj, name, value = args
    _attr_name(name)
    set_attr(obj, name, value)


def guest_delattr(*args: Any) -> None:
    _arity("delattr", args, 2, 2)
    obj, name = args
    _attr_name(name)
    del_attr(obj, name)


def guest_vars(*args: Any) -> Any:
    if len(args) != 1:
        raise TypeError("vars() needs exactly one argument in safe-eval (the current scope is not exposed)")
    obj = args[0]
    if is_guest_class(type(obj)):
        try:
            return get_attr(obj, "__dict__")
        except AttributeError:
            pass
    raise TypeError("vars() argument must have __dict__ attribute")


def guest_dir(*args: Any) -> list[str]:
    if len(args) != 1:
        raise TypeError("dir() needs exactly one argument in safe-eval (the current scope is not exposed)")
    obj = args[0]
    names = _b.dir(obj)  # guest classes cannot define __dir__; a host type's is its C one
    guest_instance = is_guest_class(type(obj))
    guest_class = isinstance(obj, type) and is_guest_class(obj)
    if guest_instance or guest_class:
        dunders = GUEST_INSTANCE_DUNDERS if guest_instance else GUEST_TYPE_DUNDERS
        return [n for n in names if not (n[:2] == "__" and n[-2:] == "__") or n in dunders]
    return [n for n in names if readable(obj, n)]


# -- type, super -----------------------------------------------------------------------------------
def guest_super(*args: Any) -> Any:
    """Two-argument ``super(cls, obj)`` for classes the guest defined (the interpreter compiles
    the zero-argument form into this call with ``__class__`` and the first argument)."""
    if len(args) != 2:
        raise RuntimeError("super(): use super() inside a method or super(Class, obj)")
    cls, obj = args
    if not (isinstance(cls, type) and is_guest_class(cls)):
        raise TypeError("super() in safe-eval works with classes defined by the code")
    return super(cls, obj)


# -- output, formatting ----------------------------------------------------------------------------
@recursion_guard
def guest_print(*args: Any, sep: Any = " ", end: Any = "\n", file: Any = None, flush: bool = False) -> None:
    if file is not None:
        raise TypeError("print(file=...) is not available in safe-eval")
    sep = " " if sep is None else sep
    end = "\n" if end is None else end
    if not isinstance(sep, str):
        raise TypeError(f"sep must be None or a string, not {type(sep).__name__}")
    if not isinstance(end, str):
        raise TypeError(f"end must be None or a string, not {type(end).__name__}")
    parts = [g_text(a) for a in args]  # priced like str(): shared nested data, escaping
    ctx = current_context()
    if ctx is None:  # pragma: no cover - guest code runs only in a run's context (a host call too)
        raise RuntimeError("print() is not available outside an evaluation")
    # size first: a huge sep/end times many args must not be joined before the check
    ctx.budget.check_output(sum(map(len, parts)) + len(sep) * max(0, len(parts) - 1) + len(end))
    ctx.budget.write(sep.join(parts) + end)


# -- eval / exec -------------------------------------------------------------------------------------
def _run_nested(mode: str, source: Any, globals_: Any, locals_: Any) -> Any:
    if isinstance(source, bytes | bytearray):
        source = bytes(source).decode("utf-8")
    if not isinstance(source, str):
        raise TypeError(f"{mode}() arg 1 must be a string in safe-eval (code objects do not exist here)")
    if globals_ is not None and type(globals_) is not dict:
        raise TypeError(f"{mode}() globals must be a dict")
    if locals_ is not None and locals_ is not globals_:
        raise TypeError(f"{mode}() with separate locals is not supported in safe-eval")
    ctx = current_context()
    # pragma below: guest code runs only in a run context; guestlib builds one without run_nested
    # for its own code, which never calls eval/exec
    if ctx is None or ctx.run_nested is None:  # pragma: no cover
        raise RuntimeError(f"{mode}() is not available outside an evaluation")
    return ctx.run_nested(str.__str__(source), mode, globals_)


def guest_eval(source: Any, globals: Any = None, locals: Any = None, /) -> Any:
    """``eval`` of a string, through the whole safe-eval pipeline under the same policy and budget."""
    return _run_nested("eval", source, globals, locals)


def guest_exec(source: Any, globals: Any = None, locals: Any = None, /) -> None:
    """``exec`` of a string, through the whole safe-eval pipeline under the same policy and budget."""
    _run_nested("exec", source, globals, locals)


def _build() -> dict[str, Any]:
    table: dict[str, Any] = {n: getattr(_b, n) for n in _RAW + _EXCEPTIONS if hasattr(_b, n)}
    table.update(
        getattr=guest_getattr,
        hasattr=guest_hasattr,
        setattr=guest_setattr,
        delattr=guest_delattr,
        vars=guest_vars,
        dir=guest_dir,
        type=GUARDED_TYPE,
        super=guest_super,
        print=guest_print,
        eval=guest_eval,
        exec=guest_exec,
    )
    for fn, name in (
        (guest_getattr, "getattr"),
        (guest_hasattr, "hasattr"),
        (guest_setattr, "setattr"),
        (guest_delattr, "delattr"),
        (guest_vars, "vars"),
        (guest_dir, "dir"),
        (guest_super, "super"),
        (guest_print, "print"),
        (guest_eval, "eval"),
        (guest_exec, "exec"),
    ):
        fn.__name__ = fn.__qualname__ = name
    table.update(GUARDED_BUILTINS)  # engineer 5's size/work guards win over ours
    return table


BUILTINS: dict[str, Any] = _build()
register_guest_visible(BUILTINS.values())
for _name, _value in BUILTINS.items():
    # a guard written in Python for a builtin function: shown as that builtin (not ``super``,
    # a class in CPython)
    if isinstance(_value, FunctionType) and isinstance(getattr(_b, _name, None), BuiltinFunctionType):
        show_as(_value, f"<built-in function {_name}>")

_NAMES = frozenset(BUILTINS) | {"super"}


def builtin_names() -> frozenset[str]:
    """Every builtin name guest code may use (for the static unknown-name check)."""
    return _NAMES
