# Guest standard library: ``collections.namedtuple``. Run by the safe-eval interpreter as
# guest code (see safe_eval/guestlib/__init__.py). CPython builds ``__new__`` by exec of
# generated text; ours is a class statement over the field list, so the class and its methods
# are guest-made and act with the caller's rights. ``_iskeyword`` and ``_itemgetter`` are host
# leaves (keyword.iskeyword on a str, operator.itemgetter of an int).


def _check_name(name):
    if type(name) is not str:
        raise TypeError("Type names and field names must be strings")
    if not name.isidentifier():
        raise ValueError(f"Type names and field names must be valid identifiers: {name!r}")
    if _iskeyword(name):
        raise ValueError(f"Type names and field names cannot be a keyword: {name!r}")


def _field_names(field_names, rename):
    if isinstance(field_names, str):
        field_names = field_names.replace(",", " ").split()
    names = list(map(str, field_names))
    if rename:
        seen = set()
        for i, name in enumerate(names):
            if (not name.isidentifier() or _iskeyword(name) or name.startswith("_")
                    or name in seen):
                names[i] = f"_{i}"
            seen.add(name)
    for name in names:
        _check_name(name)
    seen = set()
    for name in names:
        if name.startswith("_") and not rename:
            raise ValueError(f"Field names cannot start with an underscore: {name!r}")
        if name in seen:
            raise ValueError(f"Encountered duplicate field name: {name!r}")
        seen.add(name)
    return names


def namedtuple(typename, field_names, *, rename=False, defaults=None, module=None):
    typename = str(typename)
    _check_name(typename)
    field_tuple = tuple(_field_names(field_names, rename))
    defaults_t = tuple(defaults) if defaults is not None else ()
    if len(defaults_t) > len(field_tuple):
        raise TypeError("Got more default values than field names")
    defaults_map = dict(zip(field_tuple[len(field_tuple) - len(defaults_t):], defaults_t, strict=True))
    nfields = len(field_tuple)
    required = nfields - len(defaults_map)
    if required == nfields:
        takes = f"{nfields + 1}"
    else:
        takes = f"from {required + 1} to {nfields + 1}"
    takes += " positional argument" + ("" if takes == "1" else "s")

    class _NamedTuple(tuple):
        __slots__ = ()
        __match_args__ = field_tuple
        _fields = field_tuple
        _field_defaults = defaults_map

        def __new__(cls, *args, **kwargs):
            if len(args) > nfields:
                raise TypeError(f"{typename}.__new__() takes {takes} but {len(args) + 1} were given")
            for name in kwargs:
                if name not in field_tuple:
                    raise TypeError(f"{typename}.__new__() got an unexpected keyword argument '{name}'")
                if field_tuple.index(name) < len(args):
                    raise TypeError(f"{typename}.__new__() got multiple values for argument '{name}'")
            values = list(args)
            for name in field_tuple[len(args):]:
                if name in kwargs:
                    values.append(kwargs[name])
                elif name in defaults_map:
                    values.append(defaults_map[name])
                else:
                    missing = [n for n in field_tuple[len(values):]
                               if n not in kwargs and n not in defaults_map]
                    s = "s" if len(missing) > 1 else ""
                    raise TypeError(f"{typename}.__new__() missing {len(missing)} required positional "
                                    f"argument{s}: " + ", ".join([repr(n) for n in missing]))
            return tuple.__new__(cls, values)

        @classmethod
        def _make(cls, iterable):
            result = tuple.__new__(cls, iterable)
            if len(result) != nfields:
                raise TypeError(f"Expected {nfields} arguments, got {len(result)}")
            return result

        def _replace(self, /, **kwds):
            pairs = zip(field_tuple, self, strict=True)
            result = self._make([kwds.pop(name, value) for name, value in pairs])
            if kwds:
                raise ValueError(f"Got unexpected field names: {list(kwds)!r}")
            return result

        def __repr__(self):
            body = ", ".join([f"{name}={value!r}" for name, value in zip(field_tuple, self, strict=True)])
            return f"{type(self).__name__}({body})"

        def _asdict(self):
            return dict(zip(field_tuple, self, strict=True))

    _NamedTuple.__name__ = typename
    _NamedTuple.__qualname__ = typename
    for index, name in enumerate(field_tuple):
        setattr(_NamedTuple, name, property(_itemgetter(index)))
    return _NamedTuple
