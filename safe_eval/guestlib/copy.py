# Guest standard library: ``copy``. Run by the safe-eval interpreter as guest code (see
# safe_eval/guestlib/__init__.py). ``_copy_kind``, ``_newargs``, ``_slot_names``,
# ``_plain_deepcopy`` and ``Error`` are host leaves (_leaves.py).
#
# CPython's copy falls back on ``__reduce_ex__`` and then sets whatever the reduce tuple names
# with host rights. Ours never asks an object to describe itself: plain containers are rebuilt
# here, guest objects are rebuilt the way ``object.__reduce_ex__(4)`` would describe them
# (``cls.__new__(cls, *newargs)``, then the instance ``__dict__`` and slots, list/dict items),
# and a guest ``__copy__``/``__deepcopy__`` is an ordinary guest call. Immutable values are
# returned as they are, and so are membrane wrappers and other host objects (no host code
# duplicates what is behind a wrapper). Divergences: immutable host values (Decimal,
# Fraction, datetime ...) and host objects are returned as they are, where CPython may return
# a new object.

_nil = object()


def copy(x):
    kind = _copy_kind(x)
    if kind == "atomic" or kind == "tuple" or kind == "frozenset":
        return x
    if kind == "list" or kind == "dict" or kind == "set" or kind == "bytearray":
        return x.copy()
    if kind == "deque":
        return type(x)(x, x.maxlen)
    if kind == "defaultdict":
        return type(x)(x.default_factory, x)
    if kind == "mapping":
        return type(x)(x)
    cls = type(x)
    copier = getattr(cls, "__copy__", None)
    if copier is not None:
        return copier(x)
    return _reconstruct(x, None)


def deepcopy(x, memo=None):
    if memo is None:
        memo = {}
    d = id(x)
    y = memo.get(d, _nil)
    if y is not _nil:
        return y
    kind = _copy_kind(x)
    if kind == "atomic":
        return x
    if kind == "list" or kind == "dict" or kind == "tuple" or kind == "set" or kind == "frozenset":
        y = _plain_copied(x, memo)  # a tree of plain data: one host leaf
        if y is not _nil:
            return y
    if kind == "list":
        y = []
        memo[d] = y
        for a in x:
            y.append(deepcopy(a, memo))
    elif kind == "tuple":
        y = [deepcopy(a, memo) for a in x]
        # a tuple that contains itself through a list: the copy was made meanwhile
        found = memo.get(d, _nil)
        if found is not _nil:
            return found
        same = True
        for k, j in zip(x, y, strict=True):
            if k is not j:
                same = False
                break
        y = x if same else tuple(y)
    elif kind == "dict":
        y = {}
        memo[d] = y
        for key, value in x.items():
            y[deepcopy(key, memo)] = deepcopy(value, memo)
    elif kind == "set" or kind == "frozenset":
        y = type(x)(deepcopy(list(x), memo))
    elif kind == "bytearray":
        y = bytearray(x)
    elif kind == "deque":
        y = type(x)(maxlen=x.maxlen)
        memo[d] = y
        for a in x:
            y.append(deepcopy(a, memo))
    elif kind == "defaultdict" or kind == "mapping":
        y = type(x)(x.default_factory) if kind == "defaultdict" else type(x)()
        memo[d] = y
        for key, value in x.items():
            y[deepcopy(key, memo)] = deepcopy(value, memo)
    else:
        copier = getattr(x, "__deepcopy__", None)
        if copier is not None:
            y = copier(memo)
        else:
            y = _reconstruct(x, memo)
    if y is not x:
        memo[d] = y
        _keep_alive(x, memo)
    return y


def _plain_copied(x, memo):
    # the host copies with a memo of its own (the guest's memo never reaches host code) and
    # hands back what it recorded; this guest code records it in the guest's memo, unless the
    # guest's memo already knew a part of x (then the copy must reuse it: the slow path does)
    found = _plain_deepcopy(x, _nil)
    if found is _nil:
        return _nil
    y, recorded = found
    for key, _ in recorded:
        if key in memo:
            return _nil
    for key, value in recorded:
        memo[key] = value
    _keep_alive(x, memo)
    return y


def _keep_alive(x, memo):
    # as CPython: the originals must outlive the memo, or a new object could reuse an id
    alive = memo.get(id(memo), _nil)
    if alive is _nil:
        memo[id(memo)] = [x]
    else:
        alive.append(x)


def _reconstruct(x, memo):
    """Rebuild a guest object as ``object.__reduce_ex__(4)`` describes it (``memo``: deep)."""
    deep = memo is not None
    cls = type(x)
    if isinstance(x, BaseException):
        args = deepcopy(x.args, memo) if deep else x.args
        y = cls(*args)
    elif isinstance(x, (set, frozenset)):
        y = cls([deepcopy(a, memo) for a in x] if deep else list(x))
    elif isinstance(x, tuple) and hasattr(cls, "_make"):
        y = cls._make([deepcopy(a, memo) for a in x] if deep else x)
    else:
        args = _newargs(x)
        if deep:
            args = deepcopy(args, memo)
        y = cls.__new__(cls, *args)
    if deep:
        memo[id(x)] = y
    try:
        state = vars(x)
    except TypeError:
        state = None
    if state:
        if deep:
            state = deepcopy(dict(state), memo)
        vars(y).update(state)
    for name in _slot_names(cls):
        value = getattr(x, name, _nil)
        if value is not _nil:
            object.__setattr__(y, name, deepcopy(value, memo) if deep else value)
    if isinstance(x, list):
        for item in x:
            y.append(deepcopy(item, memo) if deep else item)
    elif isinstance(x, dict):
        for key, value in x.items():
            if deep:
                y[deepcopy(key, memo)] = deepcopy(value, memo)
            else:
                y[key] = value
    return y
