"""Curated ``base64``: encoders and decoders (output is a constant factor of the input)."""

from __future__ import annotations

import base64
from typing import Any

from safe_eval.membrane.modules._util import pick


def build() -> dict[str, Any]:
    return pick(base64, ["b64encode", "b64decode", "standard_b64encode", "standard_b64decode",
                         "urlsafe_b64encode", "urlsafe_b64decode", "b32encode", "b32decode",
                         "b32hexencode", "b32hexdecode", "b16encode", "b16decode", "b85encode",
                         "b85decode", "a85encode", "a85decode", "encodebytes", "decodebytes"])
