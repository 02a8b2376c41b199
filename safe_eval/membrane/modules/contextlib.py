"""Curated ``contextlib``: ``contextmanager`` (ours, over the guest generator's public
protocol only: ``next``/``throw``/``close``), ``suppress``, ``nullcontext``, ``closing``,
``ExitStack``. Left out: ``redirect_stdout``/``redirect_stderr`` (they swap host ``sys``
streams) and the async variants."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from types import TracebackType
from typing import Any

from safe_eval.membrane.modules._util import pick


class _GeneratorContextManager:
    """What ``@contextmanager`` returns when called: enter runs the generator to its
    ``yield``; exit resumes it, or throws the body's exception into it."""

    __slots__ = ("_gen",)

    def __init__(self, gen: Any) -> None:
        self._gen = gen

    def __enter__(self) -> Any:
        try:
            return next(self._gen)
        except StopIteration:
            raise RuntimeError("generator didn't yield") from None

    def __exit__(self, typ: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> bool:
        if typ is None:
            try:
                next(self._gen)
            except StopIteration:
                return False
            raise RuntimeError("generator didn't stop")
        if value is None:
            value = typ()
        try:
            self._gen.throw(value)
        except StopIteration as exc:
            return exc is not value
        except RuntimeError as exc:
            if exc is value:
                return False
            if isinstance(value, StopIteration) and exc.__cause__ is value:
                return False
            raise
        except BaseException as exc:
            if exc is not value:
                raise
            return False
        raise RuntimeError("generator didn't stop after throw()")


def contextmanager(func: Callable[..., Any]) -> Callable[..., _GeneratorContextManager]:
    def helper(*args: Any, **kwargs: Any) -> _GeneratorContextManager:
        return _GeneratorContextManager(func(*args, **kwargs))

    for attr in ("__name__", "__qualname__", "__doc__"):
        value = getattr(func, attr, None)
        if value is None or isinstance(value, str):
            try:
                setattr(helper, attr, value)
            except (AttributeError, TypeError):
                pass
    return helper


def build() -> dict[str, Any]:
    from safe_eval.membrane.modules._hosttypes import allow_all

    allow_all([contextlib.suppress, contextlib.nullcontext, contextlib.closing, contextlib.ExitStack])
    attrs = pick(contextlib, ["suppress", "nullcontext", "closing", "ExitStack"])
    attrs["contextmanager"] = contextmanager
    return attrs
