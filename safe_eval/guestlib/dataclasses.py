# Guest standard library: ``dataclasses``. Run by the safe-eval interpreter as guest code (see
# safe_eval/guestlib/__init__.py): every getattr/setattr/call below goes through the membrane
# with the guest's rights. The names this file uses without defining them are host leaves
# (``_leaves.py``, ``_dataclasses()``; ``_deepcopy`` is this run's guest-stdlib copy.deepcopy).
#
# CPython generates __init__/__repr__/... as source text and execs it; ours are closures over
# the field list, generic in their arguments, with CPython's error messages.
# Divergences (documented): ClassVar and InitVar annotations are ordinary fields (annotations
# are never evaluated); slots=True and weakref_slot are refused; dunder field names are refused.


def _plural(n, word):
    if n == 1:
        return f"{n} {word}"
    return f"{n} {word}s"


def _has_default(f):
    return f.default is not MISSING or f.default_factory is not MISSING


def _default_of(f):
    if f.default_factory is not MISSING:
        return f.default_factory()
    return f.default


def _listed(names):
    if len(names) == 1:
        return repr(names[0])
    return ", ".join([repr(n) for n in names[:-1]]) + f" and {names[-1]!r}"


def _collect_fields(cls, kw_only):
    fields = {}
    for base in cls.__mro__[-1:0:-1]:
        base_fields = _dataclass_fields(base, True)
        if base_fields:
            for f in base_fields.values():
                fields[f.name] = f
    for name, annotation in _own_annotations(cls):
        default = _own_value(cls, name, MISSING)
        if _is_field(default):
            f = default
        else:
            f = _host_field(default=default)
        f = _finish_field(f, name, annotation, kw_only)
        if f.default is not MISSING and type(f.default).__hash__ is None:
            raise ValueError(f"mutable default {type(f.default)} for field {name} is not allowed: "
                             "use default_factory")
        # the class attribute keeps the default value (as in CPython), never the Field
        if _is_field(default):
            if f.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
        fields[name] = f
    return fields


def _check_default_order(positional):
    seen = None
    for f in positional:
        if _has_default(f):
            seen = f
        elif seen is not None:
            if _PY313:
                raise TypeError(f"non-default argument {f.name!r} follows default argument {seen.name!r}")
            raise TypeError(f"non-default argument {f.name!r} follows default argument")


def _make_init(cls, fields, frozen, post_init):
    init_fields = [f for f in fields if f.init]
    positional = [f for f in init_fields if not f.kw_only]
    derived = [f for f in fields if not f.init and _has_default(f)]
    names = {f.name for f in init_fields}
    qualname = f"{cls.__qualname__}.__init__"
    _check_default_order(positional)
    required = len([f for f in positional if not _has_default(f)])
    if required == len(positional):
        takes = f"{len(positional) + 1}"
    else:
        takes = f"from {required + 1} to {len(positional) + 1}"
    takes += " positional argument" + ("" if takes == "1" else "s")
    npos = len(positional)
    # every field given positionally, nothing else to set: the arguments are the values
    direct = len(init_fields) == npos and not derived
    direct_names = tuple([f.name for f in positional])
    assigned = [f for f in fields if f.init or _has_default(f)]

    def bind(args, kwargs):
        """The value of each assigned field, in field order, with CPython's binding errors."""
        if len(args) > npos:
            given = len(args) + 1
            raise TypeError(f"{qualname}() takes {takes} but {given} "
                            f"{'was' if given == 1 else 'were'} given")
        for key in kwargs:
            if key not in names:
                raise TypeError(f"{qualname}() got an unexpected keyword argument '{key}'")
        values = {}
        for f, arg in zip(positional, args, strict=False):
            if f.name in kwargs:
                raise TypeError(f"{qualname}() got multiple values for argument '{f.name}'")
            values[f.name] = arg
        missing_pos = []
        missing_kw = []
        for f in init_fields:
            if f.name in values:
                continue
            if f.name in kwargs:
                values[f.name] = kwargs[f.name]
            elif _has_default(f):
                values[f.name] = _default_of(f)
            elif f.kw_only:
                missing_kw.append(f.name)
            else:
                missing_pos.append(f.name)
        if missing_pos:
            what = _plural(len(missing_pos), "required positional argument")
            raise TypeError(f"{qualname}() missing {what}: {_listed(missing_pos)}")
        if missing_kw:
            what = _plural(len(missing_kw), "required keyword-only argument")
            raise TypeError(f"{qualname}() missing {what}: {_listed(missing_kw)}")
        for f in derived:
            values[f.name] = _default_of(f)
        return [values[f.name] for f in assigned]

    assigned_names = tuple([f.name for f in assigned])

    def init(self, *args, **kwargs):
        if direct and not kwargs and len(args) == npos:
            _set_fields(self, direct_names, args, frozen)
        else:
            _set_fields(self, assigned_names, bind(args, kwargs), frozen)
        if post_init:
            getattr(self, "__post_init__")()

    _set_signature(init, [(f.name, "keyword" if f.kw_only else "positional", f.default,
                           f.default is not MISSING, f.default_factory is not MISSING)
                          for f in positional + [f for f in init_fields if f.kw_only]])
    init.__name__ = "__init__"
    init.__qualname__ = qualname
    return init


def _make_repr(cls, fields):
    shown = [f.name for f in fields if f.repr]
    running = set()

    def repr_(self):
        key = id(self)
        if key in running:
            return "..."
        running.add(key)
        try:
            body = ", ".join([f"{name}={getattr(self, name)!r}" for name in shown])
        finally:
            running.discard(key)
        return f"{type(self).__qualname__}({body})"

    repr_.__name__ = "__repr__"
    repr_.__qualname__ = f"{cls.__qualname__}.__repr__"
    return repr_


def _make_compare(cls, fields, name):
    names = tuple([f.name for f in fields if f.compare])

    if name == "__eq__":
        def method(self, other):
            pair = _field_pair(self, other, names)
            if pair is None:
                return NotImplemented
            return pair[0] == pair[1]
    elif name == "__lt__":
        def method(self, other):
            pair = _field_pair(self, other, names)
            if pair is None:
                return NotImplemented
            return pair[0] < pair[1]
    elif name == "__le__":
        def method(self, other):
            pair = _field_pair(self, other, names)
            if pair is None:
                return NotImplemented
            return pair[0] <= pair[1]
    elif name == "__gt__":
        def method(self, other):
            pair = _field_pair(self, other, names)
            if pair is None:
                return NotImplemented
            return pair[0] > pair[1]
    else:
        def method(self, other):
            pair = _field_pair(self, other, names)
            if pair is None:
                return NotImplemented
            return pair[0] >= pair[1]

    method.__name__ = name
    method.__qualname__ = f"{cls.__qualname__}.{name}"
    return method


def _make_hash(fields):
    names = tuple([f.name for f in fields if (f.compare if f.hash is None else f.hash)])

    def hash_(self):
        return hash(_field_values(self, names))

    hash_.__name__ = "__hash__"
    return hash_


def _make_frozen(cls, fields):
    names = {f.name for f in fields}

    def setattr_(self, name, value):
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def delattr_(self, name):
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    setattr_.__name__ = "__setattr__"
    delattr_.__name__ = "__delattr__"
    return [("__setattr__", setattr_), ("__delattr__", delattr_)]


def _set_new(cls, name, value):
    """Set ``name`` unless the class body defines it; True when it was already there."""
    if _own_dunder(cls, name) != "missing":
        return True
    setattr(cls, name, value)
    return False


def _process(cls, init, repr, eq, order, unsafe_hash, frozen, match_args, kw_only):
    if not isinstance(cls, type):
        raise TypeError("dataclass() should be applied to a class")
    if order and not eq:
        raise ValueError("eq must be true if order is true")
    own_hash = _own_dunder(cls, "__hash__")
    eq_in_body = _own_dunder(cls, "__eq__") != "missing"
    has_own_hash = not (own_hash == "missing" or (own_hash == "none" and eq_in_body))
    field_map = _collect_fields(cls, kw_only)
    fields = list(field_map.values())
    positional_names = tuple([f.name for f in fields if f.init and not f.kw_only])
    new_match_args = None
    if match_args and _own_dunder(cls, "__match_args__") == "missing":
        new_match_args = positional_names
    _set_dataclass_info(cls, field_map, (init, repr, eq, order, unsafe_hash, frozen, match_args, kw_only),
                        new_match_args)
    if init:
        post_init = getattr(cls, "__post_init__", None) is not None
        _set_new(cls, "__init__", _make_init(cls, fields, frozen, post_init))
    if repr:
        _set_new(cls, "__repr__", _make_repr(cls, fields))
    if eq:
        _set_new(cls, "__eq__", _make_compare(cls, fields, "__eq__"))
    if order:
        for name in ("__lt__", "__le__", "__gt__", "__ge__"):
            if _set_new(cls, name, _make_compare(cls, fields, name)):
                raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}. "
                                "Consider using functools.total_ordering")
    if frozen:
        for name, method in _make_frozen(cls, fields):
            if _set_new(cls, name, method):
                raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
    if unsafe_hash or (eq and frozen and not has_own_hash):
        if unsafe_hash and has_own_hash:
            raise TypeError(f"Cannot overwrite attribute __hash__ in class {cls.__name__}")
        setattr(cls, "__hash__", _make_hash(fields))
    elif eq and not frozen and not has_own_hash:
        setattr(cls, "__hash__", None)
    return cls


def dataclass(cls=None, /, *, init=True, repr=True, eq=True, order=False, unsafe_hash=False,
              frozen=False, match_args=True, kw_only=False, slots=False, weakref_slot=False):
    if slots or weakref_slot:
        raise TypeError("dataclass(slots=True) is not supported in safe-eval")

    def wrap(c):
        return _process(c, init, repr, eq, order, unsafe_hash, frozen, match_args, kw_only)

    if cls is None:
        return wrap
    return wrap(cls)


def field(*, default=MISSING, default_factory=MISSING, init=True, repr=True, hash=None,
          compare=True, metadata=None, kw_only=MISSING):
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return _host_field(default=default, default_factory=default_factory, init=init, repr=repr,
                       hash=hash, compare=compare, metadata=metadata, kw_only=kw_only)



def fields(class_or_instance):
    found = _dataclass_fields(class_or_instance)
    if found is None:
        raise TypeError("must be called with a dataclass type or instance")
    return tuple(found.values())


def is_dataclass(obj):
    return _dataclass_fields(obj) is not None


def _is_dataclass_instance(obj):
    return not isinstance(obj, type) and _dataclass_fields(obj) is not None


def _inner(obj, factory):
    if _is_dataclass_instance(obj):
        return factory([(f.name, _inner(getattr(obj, f.name), factory)) for f in fields(obj)])
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*[_inner(v, factory) for v in obj])
    if isinstance(obj, (list, tuple)):
        return type(obj)([_inner(v, factory) for v in obj])
    if isinstance(obj, dict):
        return type(obj)([(_inner(k, factory), _inner(v, factory)) for k, v in obj.items()])
    return _deepcopy(obj)


def asdict(obj, *, dict_factory=dict):
    if not _is_dataclass_instance(obj):
        raise TypeError("asdict() should be called on dataclass instances")
    return _inner(obj, dict_factory)


def astuple(obj, *, tuple_factory=tuple):
    if not _is_dataclass_instance(obj):
        raise TypeError("astuple() should be called on dataclass instances")

    def as_tuple(pairs):
        return tuple_factory([value for name, value in pairs])

    return _inner(obj, as_tuple)


def replace(obj, /, **changes):
    if not _is_dataclass_instance(obj):
        raise TypeError("replace() should be called on dataclass instances")
    for f in fields(obj):
        if not f.init:
            if f.name in changes:
                message = f"field {f.name} is declared with init=False, it cannot be specified with replace()"
                if _PY313:
                    raise TypeError(message)
                raise ValueError(message)
            continue
        if f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    return type(obj)(**changes)
