"""Curated ``uuid``: UUID, uuid3/4/5 and the namespaces. Left out: ``uuid1`` and ``getnode``
(they reveal the host's MAC address)."""

from __future__ import annotations

import uuid
from typing import Any

from safe_eval.membrane.modules._util import pick


def build() -> dict[str, Any]:
    return pick(uuid, ["UUID", "uuid3", "uuid4", "uuid5", "NAMESPACE_DNS", "NAMESPACE_URL",
                       "NAMESPACE_OID", "NAMESPACE_X500", "RESERVED_NCS", "RFC_4122",
                       "RESERVED_MICROSOFT", "RESERVED_FUTURE"])
