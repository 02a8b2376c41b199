"""Guest tracebacks: where in the guest source an exception passed, without host frames.

Blocks note the statement that was running when an exception went through them (the
innermost note per guest frame wins); guest calls close the frame and push it. At the API
boundary the frames become ``GuestFrame``s, outermost first, like CPython's traceback.
"""

from __future__ import annotations

from typing import Any

from safe_eval.errors import GuestFrame, LimitExceeded, PolicyViolation

__all__ = ["KEY", "CodeInfo", "clear", "frames_of", "note", "push"]

KEY = "__safe_eval_trace__"


class CodeInfo:
    """Static facts about one compiled guest code unit (module, function, class body);
    read-only after construction (a plain class: dataclass creation is cold-start time)."""

    __slots__ = ("name", "qualname", "filename", "lines", "start")

    def __init__(self, name: str, qualname: str, filename: str, lines: tuple[str, ...],
                 start: tuple[int, int] = (0, 0)) -> None:
        self.name = name
        self.qualname = qualname
        self.filename = filename
        self.lines = lines
        self.start = start  # (line, col) of a body that is one expression (a lambda's)

    def __repr__(self) -> str:
        return f"CodeInfo(name={self.name!r}, qualname={self.qualname!r}, filename={self.filename!r})"

    def source_line(self, line: int) -> str:
        return self.lines[line - 1] if 0 < line <= len(self.lines) else ""


class _Trace:
    __slots__ = ("pending", "frames")

    def __init__(self) -> None:
        self.pending: tuple[int, int] | None = None
        self.frames: list[tuple[CodeInfo, int, int]] = []  # innermost first


def _trace(e: BaseException) -> _Trace | None:
    try:
        d = e.__dict__
    except AttributeError:
        return None
    t = d.get(KEY)
    if not isinstance(t, _Trace):
        t = d[KEY] = _Trace()
    return t


def note(e: BaseException, pos: tuple[int, int]) -> None:
    """A statement at ``pos`` (line, col) was running when ``e`` went through."""
    if isinstance(e, LimitExceeded):
        e.at_line(pos[0], pos[1] + 1)
        return
    t = _trace(e)
    if t is not None and t.pending is None:
        t.pending = pos


def push(e: BaseException, code: CodeInfo) -> None:
    """``e`` leaves a guest frame running ``code``."""
    if isinstance(e, LimitExceeded):
        if e.line is not None:
            e.in_source(code.filename, code.source_line(e.line))
        return
    t = _trace(e)
    if t is not None:
        line, col = t.pending or code.start  # no statement ran in it: a lambda's expression
        t.frames.append((code, line, col))
        t.pending = None
        if isinstance(e, PolicyViolation):  # a run-time denial: where the guest asked for it
            e.locate(code.filename, line, col + 1, "\n".join(code.lines))
        cause = e.__cause__
        if cause is not None:  # ``raise ... from c``: c was caught in this frame, where it stopped
            caught = _trace(cause)
            if caught is not None and caught.pending is not None:
                caught.frames.append((code, *caught.pending))
                caught.pending = None


def clear(e: BaseException) -> None:
    """A fresh ``raise e``: the traceback starts again."""
    try:
        e.__dict__.pop(KEY, None)
    except AttributeError:
        pass


def frames_of(e: BaseException) -> list[GuestFrame]:
    t: Any = getattr(e, "__dict__", {}).get(KEY)
    if not isinstance(t, _Trace):
        return []
    out = [
        GuestFrame(code.filename, line, col, code.name, code.source_line(line))
        for code, line, col in reversed(t.frames)
    ]
    return out
