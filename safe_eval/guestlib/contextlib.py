# Guest standard library: ``contextlib.contextmanager`` and ``closing``. Run by the safe-eval
# interpreter as guest code (see safe_eval/guestlib/__init__.py): whatever the decorated
# function returns is driven with next()/throw(), and ``closing`` calls ``thing.close()``, as
# guest calls, never by host code. No host leaves.


class _GeneratorContextManager:
    def __init__(self, gen):
        self._gen = gen

    def __enter__(self):
        try:
            return next(self._gen)
        except StopIteration:
            raise RuntimeError("generator didn't yield") from None

    def __exit__(self, typ, value, tb):
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


def contextmanager(func):
    def helper(*args, **kwds):
        return _GeneratorContextManager(func(*args, **kwds))

    for attr in ("__name__", "__qualname__", "__doc__"):
        try:
            value = getattr(func, attr)
        except AttributeError:
            continue
        if value is None or isinstance(value, str):
            setattr(helper, attr, value)
    return helper


class closing:
    def __init__(self, thing):
        self.thing = thing

    def __enter__(self):
        return self.thing

    def __exit__(self, *exc_info):
        self.thing.close()
