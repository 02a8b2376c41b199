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


# ``suppress``, ``nullcontext`` and ``ExitStack`` are here for the same reason as ``closing``:
# the host classes are Python code, so read on the class their methods would run with host
# rights on any ``self`` the guest picks, and ExitStack calls what it is handed.


class suppress:
    def __init__(self, *exceptions):
        self._exceptions = exceptions

    def __enter__(self):
        pass

    def __exit__(self, exctype, excinst, exctb):
        return exctype is not None and issubclass(exctype, self._exceptions)


class nullcontext:
    def __init__(self, enter_result=None):
        self.enter_result = enter_result

    def __enter__(self):
        return self.enter_result

    def __exit__(self, *excinfo):
        pass


class ExitStack:
    def __init__(self):
        self._exit_callbacks = []

    def pop_all(self):
        new_stack = type(self)()
        new_stack._exit_callbacks = self._exit_callbacks
        self._exit_callbacks = []
        return new_stack

    def push(self, exit):
        try:
            exit_method = exit.__exit__
        except AttributeError:
            self._exit_callbacks.append((True, exit))
        else:
            self._exit_callbacks.append((True, exit_method))
        return exit

    def enter_context(self, cm):
        try:
            enter = cm.__enter__
            exit_method = cm.__exit__
        except AttributeError:
            raise TypeError(f"'{type(cm).__module__}.{type(cm).__qualname__}' object does "
                            f"not support the context manager protocol") from None
        result = enter()
        self._exit_callbacks.append((True, exit_method))
        return result

    def callback(self, callback, /, *args, **kwds):
        def _exit_wrapper(exc_type, exc, tb):
            callback(*args, **kwds)

        self._exit_callbacks.append((False, _exit_wrapper))
        return callback

    def close(self):
        self.__exit__(None, None, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc_details):
        received_exc = exc_details[0] is not None
        suppressed_exc = False
        pending_raise = False
        while self._exit_callbacks:
            is_sync, cb = self._exit_callbacks.pop()
            try:
                if cb(*exc_details):
                    suppressed_exc = True
                    pending_raise = False
                    exc_details = (None, None, None)
            except BaseException as new_exc:
                exc_details = (type(new_exc), new_exc, None)
                pending_raise = True
        if pending_raise:
            raise exc_details[1]
        return received_exc and suppressed_exc
