"""Property tests: whatever attribute names, chains and format strings guest code tries, the
membrane never hands it a host object outside the allowlist.

"Outside the allowlist", concretely (``forbidden``): a module; a frame, code object,
traceback, cell, mappingproxy or member/getset descriptor; ``type`` itself or any other
metaclass; a host generator/coroutine; a Python function whose ``__globals__`` is a module
namespace other than curated code's; a builtin function or method bound to a module outside
the harmless builtins; the builtins namespace or ``os.environ``; and any value containing the
planted secret.
"""

from __future__ import annotations

import builtins
import os
import string
import types
import unicodedata
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from safe_eval.interpreter.identity import register_guest_class as mark
from safe_eval.limits.routines import ROUTINES
from safe_eval.membrane import enter_value, get_attr, import_module
from safe_eval.membrane.formatter import safe_format
from safe_eval.policy import default_policy

SECRET = "s3cr3t-" + "planted"


def host_function(x: int = 1) -> int:
    return x


@mark
class Guest:
    def __init__(self) -> None:
        self.public = 1
        self._own = 2

    def method(self) -> int:
        return 1


class HostThing:
    def __init__(self) -> None:
        self.key = SECRET

    def act(self) -> str:
        return SECRET


_SAFE_BUILTIN_FUNCS = {getattr(builtins, n) for n in dir(builtins) if callable(getattr(builtins, n))} - {
    builtins.eval, builtins.exec, builtins.compile, builtins.open, builtins.__import__, builtins.breakpoint,
    builtins.input, builtins.getattr, builtins.setattr, builtins.delattr, builtins.vars, builtins.globals,
    builtins.locals, builtins.help, builtins.print, builtins.dir,
}


def forbidden(value: Any) -> bool:
    tp = type(value)
    if isinstance(value, types.ModuleType) or value is vars(builtins) or value is os.environ:
        return True
    if tp in (types.FrameType, types.CodeType, types.TracebackType, types.CellType, types.MappingProxyType,
              types.MemberDescriptorType, types.GetSetDescriptorType, types.GeneratorType,
              types.CoroutineType, types.AsyncGeneratorType):
        return True
    if value is type or (isinstance(value, type) and issubclass(value, type)):
        return True
    if tp is types.FunctionType and any(value is guard for guard in ROUTINES.values()):
        return False  # a price-table guard, handed out in place of the routine it prices
    if tp is types.FunctionType and not value.__module__.startswith("safe_eval.membrane"):
        return value.__globals__ is not globals()  # only this test module's own host_function
    if tp is types.BuiltinFunctionType and isinstance(value.__self__, types.ModuleType):
        return value.__self__ is builtins and value not in _SAFE_BUILTIN_FUNCS
    if tp is types.MethodType and isinstance(value.__self__, types.ModuleType):
        return True
    try:
        return SECRET in repr(value)
    except Exception:
        return False


ROOTS: list[Any] = [
    (), "text", 3, 2.5, [1], {"k": 1}, object, int, str, type(None), host_function, len, Guest(), Guest,
    ValueError("e"), KeyError(HostThing()), "{}".format, Guest().method,
    enter_value(HostThing()), enter_value(host_function, name="host_function"), enter_value(os),
    import_module("math", default_policy()), import_module("string", default_policy()),
    import_module("json", default_policy()), import_module("collections", default_policy()),
    import_module("functools", default_policy()),
]

_DUNDERS = sorted({n for obj in (object, type, types.FunctionType, host_function, ValueError("x"), Guest(),
                                 types.SimpleNamespace, (x for x in ()), os) for n in dir(obj)}
                  | {"__globals__", "__code__", "__closure__", "__builtins__", "__subclasses__", "__mro__",
                     "__base__", "__bases__", "__self__", "__func__", "__wrapped__", "__loader__", "__spec__",
                     "__traceback__", "__context__", "__cause__", "gi_frame", "gi_code", "cr_frame", "f_back",
                     "f_globals", "f_builtins", "tb_frame", "co_consts", "mro", "obj", "func", "environ",
                     "system", "modules", "codecs", "_os", "_sys", "sys", "os", "key", "act", "public", "_own",
                     "method", "_se_attrs", "_se_name", "_fn", "_obj", "_decl", "_real", "code", "globals",
                     "closure", "origin", "Formatter", "vformat", "format", "format_map"})


def _confusable(name: str) -> str:
    return name.replace("_", "\uff3f")


names = st.one_of(
    st.sampled_from(_DUNDERS),
    st.sampled_from(_DUNDERS).map(_confusable),
    st.sampled_from(_DUNDERS).map(lambda n: unicodedata.normalize("NFKD", n)),
    st.text(alphabet=string.ascii_letters + "_", min_size=1, max_size=12),
)


def _step(obj: Any, name: str) -> tuple[bool, Any]:
    try:
        return True, get_attr(obj, name)
    except (AttributeError, TypeError):
        return False, None
    except Exception as exc:  # a PolicyViolation from a refused value, a guest-visible error ...
        assert SECRET not in str(exc)
        return False, None


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(root=st.sampled_from(range(len(ROOTS))), chain=st.lists(names, min_size=1, max_size=4))
@example(root=ROOTS.index(str), chain=["__str__", "__globals__"])  # a priced slot read as a value
def test_attribute_chains_never_reach_forbidden_values(root: int, chain: list[str]) -> None:
    obj = ROOTS[root]
    for name in chain:
        ok, obj = _step(obj, name)
        if not ok:
            return
        assert not forbidden(obj), f"{name!r} -> {type(obj).__name__}"
        if callable(obj) and name in ("mro", "__subclasses__", "__getattribute__"):
            raise AssertionError(f"{name} should never be readable")


field = st.lists(
    st.one_of(names.map(lambda n: "." + n), names.map(lambda n: f"[{n}]"), st.integers(0, 3).map(lambda i: f"[{i}]")),
    min_size=1,
    max_size=4,
)


@settings(max_examples=400, deadline=None)
@given(root=st.sampled_from(range(len(ROOTS))), path=field, spec=st.sampled_from(["", "!r", "!s", ":>3", "!r:<5"]))
def test_format_strings_never_reveal_host_state(root: int, path: list[str], spec: str) -> None:
    template = "{0" + "".join(path) + spec + "}"
    try:
        text = safe_format(template, ROOTS[root])
    except (ValueError, AttributeError, KeyError, IndexError, TypeError) as exc:
        assert SECRET not in str(exc)
        return
    assert SECRET not in text
    assert "<module" not in text and "<frame" not in text and "<code" not in text


@settings(max_examples=200, deadline=None)
@given(chain=st.lists(names, min_size=1, max_size=3))
def test_getattr_builtin_equals_membrane(chain: list[str]) -> None:
    from safe_eval.membrane import BUILTINS

    guest_getattr = BUILTINS["getattr"]
    obj: Any = ()
    for name in chain:
        try:
            via_builtin = guest_getattr(obj, name)
        except (AttributeError, TypeError):
            ok, _ = _step(obj, name)
            assert not ok
            return
        ok, via_membrane = _step(obj, name)
        assert ok and not forbidden(via_builtin)
        obj = via_builtin
