"""A generator of LLM-shaped Python programs that always terminate.

Programs are built from typed expressions (int, float, bool, str, list of int, dict of str to
int) over the variables in scope, and statements around them: assignments, augmented
assignments, if/elif/else, ``for`` over small ranges and lists, counted ``while`` loops,
try/except/finally, functions (with defaults, no recursion), generator functions, classes with
``__init__``, a method and ``__repr__``, comprehensions, f-strings, prints. Loops are bounded
(ranges of at most 6, lists built from bounded pieces), sequence repetition is by at most 2, and
``**`` has a small exponent, so every program ends quickly under CPython; errors CPython raises
(ZeroDivisionError, IndexError, KeyError, ValueError, TypeError...) are part of the outcome.

Names bound inside a block are not used after it (a branch not taken would leave them
unbound), and a function assigns only its own locals.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

__all__ = ["generate"]

INT, FLOAT, BOOL, STR, LIST, DICT = "int", "float", "bool", "str", "list", "dict"
_WORDS = ["alpha", "beta", "gamma", "x", "", "Hello World", "a,b,c", " pad ", "42", "3.5", "ÿes"]
_ERRORS = ["ZeroDivisionError", "IndexError", "KeyError", "ValueError", "TypeError"]


@dataclass
class _Scope:
    names: dict[str, list[str]] = field(default_factory=lambda: {t: [] for t in (INT, FLOAT, BOOL, STR, LIST, DICT)})
    writable: set[str] = field(default_factory=set)  # names this scope may rebind
    functions: list[tuple[str, int]] = field(default_factory=list)  # int-valued, by arity
    generators: list[str] = field(default_factory=list)
    classes: list[str] = field(default_factory=list)
    objects: list[tuple[str, str]] = field(default_factory=list)  # (name, class)
    in_function: bool = False
    in_loop: bool = False

    def child(self, *, loop: bool | None = None) -> _Scope:
        """A block: sees everything, and what it binds is forgotten after it."""
        return _Scope({t: list(v) for t, v in self.names.items()}, set(self.writable), list(self.functions),
                      list(self.generators), list(self.classes), list(self.objects), self.in_function,
                      self.in_loop if loop is None else loop)


class _Gen:
    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)
        self.counter = 0
        self.lines: list[str] = []

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def chance(self, p: float) -> bool:
        return self.r.random() < p

    # -- expressions -------------------------------------------------------------------------
    def expr(self, t: str, s: _Scope, depth: int = 0) -> str:
        leaf = depth >= 2 or self.chance(0.35)
        if leaf:
            names = s.names[t]
            if names and self.chance(0.7):
                return self.r.choice(names)
            return self.literal(t)
        return getattr(self, f"e_{t}")(s, depth + 1)

    def literal(self, t: str) -> str:
        r = self.r
        if t == INT:
            return str(r.choice([0, 1, 2, 3, 5, 7, 10, -1, -4, 100]))
        if t == FLOAT:
            return r.choice(["0.5", "1.25", "-2.0", "3.0", "0.1", "1e3"])
        if t == BOOL:
            return r.choice(["True", "False"])
        if t == STR:
            return repr(r.choice(_WORDS))
        if t == LIST:
            return "[" + ", ".join(self.literal(INT) for _ in range(r.randint(0, 4))) + "]"
        return "{" + ", ".join(f"{self.literal(STR)}: {self.literal(INT)}" for _ in range(r.randint(0, 3))) + "}"

    def e_int(self, s: _Scope, d: int) -> str:
        r = self.r
        choice = r.randint(0, 13)
        if choice <= 3:
            return f"({self.expr(INT, s, d)} {r.choice(['+', '-', '*', '//', '%', '+', '-'])} {self.expr(INT, s, d)})"
        if choice == 4:
            return f"len({self.expr(r.choice([STR, LIST, DICT]), s, d)})"
        if choice == 5:
            fn = r.choice(["sum", "max", "min"])
            default = ", default=0" if fn != "sum" and r.random() < 0.5 else ""
            return f"{fn}({self.expr(LIST, s, d)}{default})"
        if choice == 6:
            return f"{self.expr(LIST, s, d)}[{self.expr(INT, s, d)}]"
        if choice == 7:
            return f"{self.expr(DICT, s, d)}[{self.expr(STR, s, d)}]"
        if choice == 8 and s.functions:
            name, arity = r.choice(s.functions)
            return f"{name}({', '.join(self.expr(INT, s, d) for _ in range(arity))})"
        if choice == 9:
            return f"({self.expr(INT, s, d)} if {self.expr(BOOL, s, d)} else {self.expr(INT, s, d)})"
        if choice == 10:
            return f"int({self.expr(r.choice([STR, FLOAT, BOOL]), s, d)})"
        if choice == 11 and s.objects:
            obj, _ = r.choice(s.objects)
            return r.choice([f"{obj}.value", f"{obj}.total({self.expr(INT, s, d)})"])
        if choice == 12 and s.generators:
            return f"sum({r.choice(s.generators)}({self.expr(INT, s, d)} % 6))"
        if choice == 13:
            return f"{r.choice(['abs', 'round'])}({self.expr(r.choice([INT, FLOAT]), s, d)})"
        return f"({self.literal(INT)} ** {r.randint(0, 3)})"

    def e_float(self, s: _Scope, d: int) -> str:
        r = self.r
        choice = r.randint(0, 3)
        if choice == 0:
            return f"({self.expr(INT, s, d)} / {self.expr(INT, s, d)})"
        if choice == 1:
            return f"({self.expr(FLOAT, s, d)} {r.choice(['+', '-', '*'])} {self.expr(r.choice([INT, FLOAT]), s, d)})"
        if choice == 2:
            return f"round({self.expr(FLOAT, s, d)}, {r.randint(0, 3)})"
        return f"float({self.expr(r.choice([INT, STR]), s, d)})"

    def e_bool(self, s: _Scope, d: int) -> str:
        r = self.r
        choice = r.randint(0, 5)
        if choice <= 1:
            t = r.choice([INT, INT, STR, FLOAT])
            return f"({self.expr(t, s, d)} {r.choice(['<', '<=', '==', '!=', '>', '>='])} {self.expr(t, s, d)})"
        if choice == 2:
            return f"({self.expr(INT, s, d)} in {self.expr(LIST, s, d)})"
        if choice == 3:
            return f"({self.expr(STR, s, d)} in {self.expr(r.choice([STR, DICT]), s, d)})"
        if choice == 4:
            return f"({self.expr(BOOL, s, d)} {r.choice(['and', 'or'])} {self.expr(BOOL, s, d)})"
        return f"(not {self.expr(BOOL, s, d)})"

    def e_str(self, s: _Scope, d: int) -> str:
        r = self.r
        choice = r.randint(0, 9)
        if choice == 0:
            return f"({self.expr(STR, s, d)} + {self.expr(STR, s, d)})"
        if choice == 1:
            return f"{self.expr(STR, s, d)}.{r.choice(['upper', 'lower', 'strip', 'title', 'swapcase', 'capitalize'])}()"
        if choice == 2:
            return f"str({self.expr(r.choice([INT, FLOAT, BOOL, LIST]), s, d)})"
        if choice == 3:
            return f"{self.expr(STR, s, d)}[{self.expr(INT, s, d)}:{self.expr(INT, s, d)}]"
        if choice == 4:
            spec = r.choice(["", ":>6", ":.2f", ":,", "!r", ":^5"])
            t = FLOAT if spec in (":.2f",) else r.choice([INT, STR]) if spec != ":," else INT
            # fields are leaves (no nested f-string); the space keeps `{ {` from reading as `{{`
            return f'f"<{{ {self.expr(t, s, 2)}{spec}}}|{{ {self.expr(INT, s, 2)}}}>"'
        if choice == 5:
            return f"{self.literal(STR)}.join({self.expr(STR, s, d)}.split({r.choice([repr(','), repr(' ')])}))"
        if choice == 6:
            return f"{self.expr(STR, s, d)}.replace({self.literal(STR)}, {self.literal(STR)})"
        if choice == 7:
            return f"({self.expr(STR, s, d)} * ({self.expr(INT, s, d)} % 3))"
        if choice == 8:
            return f"{self.expr(STR, s, d)}[{self.expr(INT, s, d)}]"
        return f"{self.literal(STR)}.join(str(v) for v in {self.expr(LIST, s, d)})"

    def e_list(self, s: _Scope, d: int) -> str:
        r = self.r
        choice = r.randint(0, 6)
        v = self.fresh("v")
        inner = s.child()
        inner.names[INT].append(v)
        if choice == 0:
            return f"[{self.expr(INT, inner, d)} for {v} in {self.expr(LIST, s, d)}]"
        if choice == 1:
            return f"[{v} for {v} in range({r.randint(0, 6)}) if {self.expr(BOOL, inner, d)}]"
        if choice == 2:
            return f"sorted({self.expr(LIST, s, d)}{', reverse=True' if r.random() < 0.4 else ''})"
        if choice == 3:
            return f"({self.expr(LIST, s, d)} + {self.expr(LIST, s, d)})"
        if choice == 4:
            return f"{self.expr(LIST, s, d)}[{r.choice(['::-1', '1:', ':2', '::2'])}]"
        if choice == 5:
            return f"list({self.expr(DICT, s, d)}.values())"
        return f"[len(w) for w in {self.expr(STR, s, d)}.split()]"

    def e_dict(self, s: _Scope, d: int) -> str:
        r = self.r
        k = self.fresh("k")
        inner = s.child()
        inner.names[STR].append(k)
        if r.random() < 0.5:
            return f"{{{k}: len({k}) for {k} in {self.expr(STR, s, d)}.split({r.choice([repr(','), repr(' ')])})}}"
        return f"{{**{self.expr(DICT, s, d)}, {self.literal(STR)}: {self.expr(INT, s, d)}}}"

    # -- statements ---------------------------------------------------------------------------
    def block(self, s: _Scope, indent: int, n: int) -> list[str]:
        out: list[str] = []
        for _ in range(n):
            out += self.stmt(s, indent)
        return out or [" " * indent + "pass"]

    def stmt(self, s: _Scope, indent: int) -> list[str]:
        r, pad = self.r, " " * indent
        nested = indent < 8
        choice = r.randint(0, 13)
        if choice <= 2:
            return self.assign(s, pad)
        if choice == 3:
            ints = [n for n in s.names[INT] if n in s.writable]
            if ints:  # grows at most linearly per step (a loop of `x *= x` would not end)
                step = self.expr(INT, s) if r.random() < 0.7 else None
                op = r.choice(["+=", "-="]) if step is not None else "*="
                return [f"{pad}{r.choice(ints)} {op} {step if step is not None else r.randint(-2, 3)}"]
            return self.assign(s, pad)
        if choice == 4:
            return [f"{pad}print({', '.join(self.expr(r.choice([INT, STR, LIST, BOOL]), s) for _ in range(r.randint(1, 3)))})"]
        if choice == 5 and nested:
            lines = [f"{pad}if {self.expr(BOOL, s)}:", *self.block(s.child(), indent + 4, r.randint(1, 2))]
            if r.random() < 0.4:
                lines += [f"{pad}elif {self.expr(BOOL, s)}:", *self.block(s.child(), indent + 4, 1)]
            if r.random() < 0.5:
                lines += [f"{pad}else:", *self.block(s.child(), indent + 4, 1)]
            return lines
        if choice == 6 and nested:
            v = self.fresh("i")
            inner = s.child(loop=True)
            inner.names[INT].append(v)
            # a copy: the body may append to the list it walks
            source = f"range({r.randint(0, 6)})" if r.random() < 0.6 else f"{self.expr(LIST, s)}[:]"
            lines = [f"{pad}for {v} in {source}:", *self.block(inner, indent + 4, r.randint(1, 3))]
            if r.random() < 0.2:
                lines += [f"{pad}else:", *self.block(s.child(), indent + 4, 1)]
            return lines
        if choice == 7 and nested:
            c = self.fresh("n")
            inner = s.child(loop=True)
            inner.names[INT].append(c)
            body = self.block(inner, indent + 4, r.randint(1, 2))
            return [f"{pad}{c} = 0", f"{pad}while {c} < {r.randint(1, 5)}:", *body, f"{pad}    {c} += 1"]
        if choice == 8 and nested:
            return self.try_stmt(s, indent)
        if choice == 9 and s.in_loop:
            return [f"{pad}if {self.expr(BOOL, s)}:", f"{pad}    break"]
        if choice == 10:
            lists = [n for n in s.names[LIST] if n in s.writable]
            if lists:
                return [f"{pad}{r.choice(lists)}.append({self.expr(INT, s)})"]
        if choice == 11:
            dicts = [n for n in s.names[DICT] if n in s.writable]
            if dicts:
                return [f"{pad}{r.choice(dicts)}[{self.expr(STR, s)}] = {self.expr(INT, s)}"]
        if choice == 12 and s.in_function:
            return [f"{pad}if {self.expr(BOOL, s)}:", f"{pad}    raise {r.choice(['ValueError', 'KeyError', 'RuntimeError'])}({self.expr(STR, s)})"]
        if choice == 13:
            return [f"{pad}assert {self.expr(BOOL, s)}, {self.expr(STR, s)}"]
        return self.assign(s, pad)

    def assign(self, s: _Scope, pad: str) -> list[str]:
        t = self.r.choice([INT, INT, FLOAT, BOOL, STR, STR, LIST, DICT])
        existing = [n for n in s.names[t] if n in s.writable]
        # no rebinding inside loops: `x = x + x` (or x * x) six times nested would not end
        value = self.expr(t, s)  # before the name exists: `x = x` would be unbound
        if existing and not s.in_loop and self.chance(0.4):
            name = self.r.choice(existing)
        else:
            name = self.fresh(t[0])
            s.names[t].append(name)
            s.writable.add(name)
        return [f"{pad}{name} = {value}"]

    def try_stmt(self, s: _Scope, indent: int) -> list[str]:
        r, pad = self.r, " " * indent
        e = self.fresh("e")
        handler = s.child()
        handler.names[STR].append(f"str({e})")
        caught = r.sample(_ERRORS, r.randint(1, 3))
        types = caught[0] if len(caught) == 1 else "(" + ", ".join(caught) + ")"
        lines = [f"{pad}try:", *self.block(s.child(), indent + 4, r.randint(1, 3)),
                 f"{pad}except {types} as {e}:", f"{pad}    print(type({e}).__name__, {e})",
                 *self.block(handler, indent + 4, r.randint(0, 1))]
        if r.random() < 0.3:
            lines += [f"{pad}else:", *self.block(s.child(), indent + 4, 1)]
        if r.random() < 0.3:
            lines += [f"{pad}finally:", f"{pad}    print('finally')"]
        return lines

    # -- definitions --------------------------------------------------------------------------
    def function(self, s: _Scope) -> list[str]:
        r = self.r
        name = self.fresh("f")
        params = [self.fresh("p") for _ in range(r.randint(1, 3))]
        inner = s.child()
        inner.in_function, inner.in_loop = True, False
        inner.writable = set(params)
        inner.names[INT] += params
        defaults = r.random() < 0.3
        sig = ", ".join(params[:-1] + [f"{params[-1]}={self.literal(INT)}" if defaults else params[-1]])
        body = self.block(inner, 4, r.randint(1, 4))
        lines = [f"def {name}({sig}):", *body, f"    return {self.expr(INT, inner)}"]
        s.functions.append((name, len(params)))
        return lines

    def generator(self, s: _Scope) -> list[str]:
        name, n, i = self.fresh("g"), self.fresh("p"), self.fresh("i")
        inner = s.child()
        inner.in_function = True
        inner.names[INT] += [n, i]
        s.generators.append(name)
        return [f"def {name}({n}):", f"    for {i} in range({n}):", f"        yield {self.expr(INT, inner)}"]

    def klass(self, s: _Scope) -> list[str]:
        name = "C" + self.fresh("")
        inner = s.child()
        inner.in_function = True
        inner.names[INT] += ["self.value", "y"]
        s.classes.append(name)
        return [f"class {name}:", "    def __init__(self, value):", "        self.value = value",
                "    def total(self, y):", f"        return {self.expr(INT, inner)}",
                "    def __repr__(self):", f"        return f'{name}({{self.value!r}})'"]

    def program(self) -> str:
        s = _Scope()
        lines: list[str] = []
        for _ in range(self.r.randint(3, 9)):
            kind = self.r.random()
            if kind < 0.15:
                lines += self.function(s)
            elif kind < 0.22:
                lines += self.generator(s)
            elif kind < 0.3:
                lines += self.klass(s)
            elif kind < 0.38 and s.classes:
                cls = self.r.choice(s.classes)
                arg = self.expr(INT, s)
                obj = self.fresh("o")
                lines.append(f"{obj} = {cls}({arg})")
                s.objects.append((obj, cls))
            else:
                lines += self.stmt(s, 0)
        shown = [n for t in (INT, FLOAT, BOOL, STR, LIST, DICT) for n in s.names[t]] + [o for o, _ in s.objects]
        lines.append("(" + ", ".join(shown[-6:]) + ("," if len(shown[-6:]) == 1 else "") + ")")
        return "\n".join(lines) + "\n"


def generate(seed: int) -> str:
    """One program, the same for the same seed."""
    return _Gen(seed).program()
