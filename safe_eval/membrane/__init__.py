"""The membrane: the only way guest code touches a host object.

The interpreter calls exactly these entry points (it never calls ``getattr``/``setattr``
on a guest-supplied name itself):

    get_attr(obj, name)            attribute read  (``obj.name``, getattr, hasattr, match class patterns)
    method_value(value)            a method read as a value, not called at once: behind a door when
                                   it is bound to data it could store host arguments into
    set_attr(obj, name, value)     attribute write (``obj.name = v``, setattr, augmented assignment)
    del_attr(obj, name)            attribute delete
    import_module(name, policy)    ``import name`` / ``from name import x``: a curated wrapper
    enter_value(value, policy)     a value crossing host -> guest (env values, tool results);
                                   pass ``name=`` (the env key) so tools are decided by that name
    guest_exception(exc)           a host exception crossing into the guest, cleaned in place
    format_value(value, spec)      ``format()`` and f-string ``{x:spec}``
    BUILTINS                       the guest's builtins, without the interpreter-provided ones
    builtin_names()                BUILTINS keys + "super", for the static unknown-name check

For hosts: ``expose(obj, attrs=..., methods=..., writable=...)`` declares what the guest may do
with a host object put in ``env`` (or give its class a ``__safe_eval_expose__``).
For safe-eval's own parts: ``register_internal_type`` (interpreter-made guest-facing classes),
``allow_host_type`` (plain-data host types curated modules hand out), and the
``__safe_eval_getattr__``/``__safe_eval_setattr__`` hooks a membrane-side class may define.

The allowlists live in ``allowlists.py``, the rules in ``attributes.py``, the builtins in
``builtins.py``, crossing in ``crossing.py``, tools and proxies in ``proxies.py``, the curated
modules in ``modules/``. The security model is written up in docs/security-model.md.
"""

from __future__ import annotations

from typing import Any

from safe_eval.interpreter.identity import register_internal_type
from safe_eval.membrane import allowlists as _allowlists
from safe_eval.membrane.allowlists import allow_host_type
from safe_eval.membrane.attributes import BoundMethod, del_attr, get_attr, set_attr
from safe_eval.membrane.builtins import BUILTINS, builtin_names
from safe_eval.membrane.crossing import enter_value, format_value, guest_exception
from safe_eval.membrane.modules import import_module as _import_module
from safe_eval.membrane.proxies import expose
from safe_eval.membrane.stored import method_value

__all__ = [
    "BUILTINS",
    "BoundMethod",
    "allow_host_type",
    "builtin_names",
    "del_attr",
    "enter_value",
    "expose",
    "format_value",
    "get_attr",
    "guest_exception",
    "import_module",
    "method_value",
    "register_internal_type",
    "set_attr",
]


def import_module(name: str, policy: Any) -> Any:
    """The curated wrapper of module ``name`` if the policy allows it (``modules.import_module``),
    with the lazily registered stdlib data types in place first (``allowlists``)."""
    if _allowlists._stdlib_pending:
        _allowlists.ensure_stdlib_types()
    return _import_module(name, policy)
