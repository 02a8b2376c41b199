"""Invariant: a SystemExit/KeyboardInterrupt/BaseException the guest raises reaches the host as a
GuestError, whichever way the host runs the guest code, never as the host exception that stops a
host catching only ``Exception``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from safe_eval import GuestError, safe_eval

RAISES = ["SystemExit(3)", "KeyboardInterrupt()", "BaseException('x')"]

WAYS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "top_level": ("raise {exc}", lambda value: value),
    "returned_function": ("def f():\n    raise {exc}\nf", lambda f: f()),
    "returned_generator": ("def g():\n    yield 1\n    raise {exc}\ng()", list),
    "returned_generator_sent_to": ("def g():\n    x = yield 1\n    raise {exc}\ng()",
                                   lambda g: (next(g), g.send(2))),
    "host_called_dunder": ("class A:\n    def __eq__(self, other):\n        raise {exc}\nA()",
                           lambda a: a == 1),
    "host_iterated_object": ("class A:\n    def __iter__(self):\n        raise {exc}\nA()", list),
}


@pytest.mark.parametrize("exc", RAISES)
@pytest.mark.parametrize("way", WAYS.values(), ids=WAYS.keys())
def test_a_guest_exit_reaches_the_host_as_a_guest_error(way: tuple[str, Callable[[Any], Any]],
                                                        exc: str) -> None:
    template, use = way
    with pytest.raises(GuestError) as info:
        use(safe_eval(template.format(exc=exc)))
    assert info.value.type_name == exc.split("(")[0]


@pytest.mark.parametrize("exc", ["SystemExit", "KeyboardInterrupt"])
def test_the_guest_can_raise_and_catch_exit_exceptions(exc: str) -> None:
    source = f"try:\n    raise {exc}(7)\nexcept {exc} as e:\n    r = (type(e).__name__, e.args)\nr"
    assert safe_eval(source) == (exc, (7,))
