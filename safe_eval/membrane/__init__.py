"""The membrane: the only way guest code touches a host object.

The interpreter calls exactly these entry points (it never calls ``getattr``/``setattr``
on a guest-supplied name itself):

    get_attr(obj, name)            attribute read  (``obj.name``, getattr, hasattr, match class patterns)
    set_attr(obj, name, value)     attribute write (``obj.name = v``, setattr, augmented assignment)
    del_attr(obj, name)            attribute delete
    import_module(name, policy)    ``import name`` / ``from name import x``: a curated wrapper
    enter_value(value, policy)     a value crossing host -> guest (env values, tool results)
    guest_exception(exc)           a host exception crossing into the guest, re-created clean
    format_value(value, spec)      ``format()`` and f-string ``{x:spec}``
    BUILTINS                       the guest's builtins, without the interpreter-provided ones

This file is a facade: the allowlists live in ``attributes.py``, the builtins in
``builtins.py``, the curated modules in ``modules/``, env proxies and tools in ``proxies.py``.
"""

from __future__ import annotations

from safe_eval.membrane.attributes import del_attr, get_attr, set_attr
from safe_eval.membrane.builtins import BUILTINS
from safe_eval.membrane.crossing import enter_value, format_value, guest_exception
from safe_eval.membrane.modules import import_module

__all__ = [
    "BUILTINS",
    "del_attr",
    "enter_value",
    "format_value",
    "get_attr",
    "guest_exception",
    "import_module",
    "set_attr",
]
