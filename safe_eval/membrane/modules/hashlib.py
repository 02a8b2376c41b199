"""Curated ``hashlib``: digest constructors. Left out: ``pbkdf2_hmac``/``scrypt`` (their cost
is a guest-chosen iteration count spent in one uninterruptible C call) and ``file_digest``.
The extendable-output types (``shake_128``/``shake_256``) take the digest length as an
argument: their ``digest``/``hexdigest`` are priced routines (``limits.stdlib_routines``)."""

from __future__ import annotations

import hashlib
from typing import Any

from safe_eval.membrane.modules._util import pick

NAMES = ["md5", "sha1", "sha224", "sha256", "sha384", "sha512", "blake2b", "blake2s",
         "sha3_224", "sha3_256", "sha3_384", "sha3_512", "shake_128", "shake_256", "new",
         "algorithms_available", "algorithms_guaranteed"]


def build() -> dict[str, Any]:
    from safe_eval.limits.stdlib_routines import xof_guards
    from safe_eval.membrane.attributes import register_guarded_methods
    from safe_eval.membrane.modules._hosttypes import allow_all

    for xof in {type(hashlib.shake_128()), type(hashlib.shake_256())}:
        register_guarded_methods(xof, xof_guards(xof))  # before the type is readable
    allow_all({type(hashlib.new(name)) for name in ("md5", "sha256", "blake2b", "blake2s",
                                                     "sha3_256", "shake_128")})
    return pick(hashlib, [n for n in NAMES if hasattr(hashlib, n)])
