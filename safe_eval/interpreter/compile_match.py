"""``match`` statements: each pattern becomes a closure ``(frame, subject) -> bool`` that binds
its captures as it matches (CPython binds them before the guard, so do we)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from safe_eval.errors import InternalError
from safe_eval.interpreter.compile_base import CompilerBase
from safe_eval.interpreter.compile_expr import get_attr
from safe_eval.interpreter.runtime import Frame
from safe_eval.interpreter.suspension import parks_frame, suspends
from safe_eval.limits.iteration import drain, metered
from safe_eval.membrane import method_value

__all__ = ["MatchCompiler"]

Pat = Callable[[Frame, Any], bool]
_SELF_MATCHING = (bool, bytearray, bytes, dict, float, frozenset, int, list, set, str, tuple)
_MISSING: Any = object()


def _is_sequence(v: Any) -> bool:
    return isinstance(v, Sequence) and not isinstance(v, (str, bytes, bytearray))


class MatchCompiler(CompilerBase):
    def s_Match(self, node: ast.Match) -> Any:
        subject = self.expr(node.subject)
        cases = [(self.pattern(c.pattern), self.expr(c.guard) if c.guard else None, self.block(c.body))
                 for c in node.cases]

        if parks_frame(self.scope) and suspends(node.cases):
            return _match_parked(subject, cases)

        def match(f: Frame) -> Any:
            s = subject(f)
            for pat, guard, body in cases:
                if pat(f, s) and (guard is None or guard(f)):
                    return body(f)
            return None
        return match

    def pattern(self, p: ast.pattern) -> Pat:
        h = getattr(self, "p_" + type(p).__name__, None)
        if h is None:
            raise InternalError(f"unsupported pattern: {type(p).__name__}")
        return h(p)  # type: ignore[no-any-return]

    def p_MatchValue(self, p: ast.MatchValue) -> Pat:
        value = self.expr(p.value)
        return lambda f, s: bool(s == value(f))

    def p_MatchSingleton(self, p: ast.MatchSingleton) -> Pat:
        v = p.value
        return lambda f, s: s is v

    def p_MatchAs(self, p: ast.MatchAs) -> Pat:
        store = self.store_name(p.name) if p.name else None
        sub = self.pattern(p.pattern) if p.pattern else None

        def match_as(f: Frame, s: Any) -> bool:
            if sub is not None and not sub(f, s):
                return False
            if store is not None:
                store(f, s)
            return True
        return match_as

    def p_MatchOr(self, p: ast.MatchOr) -> Pat:
        alts = [self.pattern(a) for a in p.patterns]
        return lambda f, s: any(a(f, s) for a in alts)

    def p_MatchSequence(self, p: ast.MatchSequence) -> Pat:
        star = next((i for i, q in enumerate(p.patterns) if isinstance(q, ast.MatchStar)), None)
        if star is None:
            pats = [self.pattern(q) for q in p.patterns]
            n = len(pats)

            def seq(f: Frame, s: Any) -> bool:
                if not _is_sequence(s) or len(s) != n:
                    return False
                return all(pat(f, x) for pat, x in zip(pats, s, strict=False))
            return seq
        before = [self.pattern(q) for q in p.patterns[:star]]
        after = [self.pattern(q) for q in p.patterns[star + 1:]]
        star_node = p.patterns[star]
        assert isinstance(star_node, ast.MatchStar)
        rest = self.store_name(star_node.name) if star_node.name else None
        need = len(before) + len(after)

        def seq_star(f: Frame, s: Any) -> bool:
            if not _is_sequence(s) or len(s) < need:
                return False
            items = drain(s)  # a guest-sized sequence copied by C: paid per item
            if not all(pat(f, x) for pat, x in zip(before, items, strict=False)):
                return False
            tail = items[len(items) - len(after):] if after else []
            if not all(pat(f, x) for pat, x in zip(after, tail, strict=False)):
                return False
            if rest is not None:
                rest(f, items[len(before):len(items) - len(after)])
            return True
        return seq_star

    def p_MatchMapping(self, p: ast.MatchMapping) -> Pat:
        keys = [self.expr(k) for k in p.keys]
        pats = [self.pattern(q) for q in p.patterns]
        rest = self.store_name(p.rest) if p.rest else None

        def mapping(f: Frame, s: Any) -> bool:
            if not isinstance(s, Mapping):
                return False
            seen = []
            for k, pat in zip(keys, pats, strict=False):
                key = k(f)
                v = s.get(key, _MISSING)
                if v is _MISSING or not pat(f, v):
                    return False
                seen.append(key)
            if rest is not None:
                rest(f, {k: v for k, v in metered(s.items()) if k not in seen})
            return True
        return mapping

    def p_MatchClass(self, p: ast.MatchClass) -> Pat:
        cls_ev = self.expr(p.cls)
        pos = [self.pattern(q) for q in p.patterns]
        kws = [(name, self.pattern(q)) for name, q in zip(p.kwd_attrs, p.kwd_patterns, strict=False)]

        def match_class(f: Frame, s: Any) -> bool:
            cls = cls_ev(f)
            if not isinstance(cls, type):
                raise TypeError("called match pattern must be a class")
            if not isinstance(s, cls):
                return False
            if pos:
                if issubclass(cls, _SELF_MATCHING) and not hasattr(cls, "__match_args__"):
                    if len(pos) > 1:
                        raise TypeError(
                            f"{cls.__name__}() accepts 1 positional sub-pattern ({len(pos)} given)")
                    if not pos[0](f, s):
                        return False
                else:
                    names = getattr(cls, "__match_args__", ())
                    if len(pos) > len(names):
                        raise TypeError(f"{cls.__name__}() accepts {len(names)} positional sub-pattern"
                                        f"{'' if len(names) == 1 else 's'} ({len(pos)} given)")
                    for name, pat in zip(names, pos, strict=False):
                        try:
                            v = method_value(get_attr(s, name))  # captured as a value
                        except AttributeError:
                            return False
                        if not pat(f, v):
                            return False
            for name, pat in kws:
                try:
                    v = method_value(get_attr(s, name))  # captured as a value
                except AttributeError:
                    return False
                if not pat(f, v):
                    return False
            return True
        return match_class


def _match_parked(subject: Any, cases: list[tuple[Pat, Any, Any]]) -> Any:
    """A ``match`` whose guard or case body can suspend, in a body whose frame is parked while
    suspended: the subject waits on the frame's tail (see ``suspension``), and is gone once a
    case body runs."""

    def match_parked(f: Frame) -> Any:
        k = len(f)
        try:
            f.append(subject(f))
            for pat, guard, body in cases:
                if pat(f, f[k]) and (guard is None or guard(f)):
                    del f[k:]
                    return body(f)
            return None
        finally:
            del f[k:]
    return match_parked
