from contextlib import ExitStack, nullcontext, suppress

log = []


class Resource:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        log.append(f"enter {self.name}")
        return self.name

    def __exit__(self, *exc):
        log.append(f"exit {self.name} {exc[0].__name__ if exc[0] else None}")
        return False


with ExitStack() as stack:
    names = [stack.enter_context(Resource(n)) for n in "abc"]
    stack.callback(log.append, "callback")
log.append(names)

try:
    with ExitStack() as stack:
        stack.enter_context(Resource("x"))
        raise ValueError("boom")
except ValueError as e:
    log.append(f"caught {e}")

with ExitStack() as stack:
    stack.push(lambda *exc: True)
    raise KeyError("swallowed")
log.append("after swallow")

with ExitStack() as outer:
    outer.callback(log.append, "moved")
    moved = outer.pop_all()
log.append("outer closed")
moved.close()

with suppress(ZeroDivisionError, KeyError):
    1 / 0
try:
    with suppress(KeyError):
        [][0]
except IndexError:
    log.append("not suppressed")

with nullcontext(42) as value:
    log.append(value)
with nullcontext() as value:
    log.append(value)
log
