"""Invariant: resolving annotations leaves nothing of a run behind in the host.

``typing`` caches the forms it builds (``Optional[X]``, ``Union[...]``, ``List[X]``,
``ClassVar[X]``): a guest class inside one of them would stay alive in that process-wide cache,
and with it its methods' globals, the whole guest namespace. The attacker (or an ordinary model)
annotates with its own classes; after the run, once the host drops what it was given, the class
must be collectable.
"""

from __future__ import annotations

import gc
import typing
import weakref

import pytest

from safe_eval import safe_exec

ANNOTATED = {
    "optional_field": "class Node:\n    nxt: Optional['Node'] = None",
    "union_field": "class Node:\n    u: Union[int, 'Node']",
    "classvar_of_list_field": "class Node:\n    kids: ClassVar[List['Node']] = []",
    "typing_list_field": "class Node:\n    kids: List['Node']",
    "nested_typing_forms": "class Node:\n    m: Dict[str, Tuple[Optional['Node'], ...]]",
    "function_parameters": "class Node:\n    pass\ndef f(x: Optional[Node], y: Union[Node, List[Node]]) -> 'Node | None':\n    pass",
}


@pytest.mark.parametrize("code", ANNOTATED.values(), ids=ANNOTATED.keys())
def test_a_guest_class_named_in_annotations_is_collectable_after_the_host_drops_it(code: str) -> None:
    ns = safe_exec(code)  # typing names need no import in an annotation
    node = ns["Node"]
    typing.get_type_hints(node)
    if "f" in ns:
        assert typing.get_type_hints(ns["f"])["x"] == (node | None)
    alive = weakref.ref(node)
    del ns, node
    gc.collect()
    assert alive() is None
