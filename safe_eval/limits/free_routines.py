"""The routines with no price of their own, each with the reason none is needed.

The price table (``limits.routines``) is an allowlist: every callable guest code can reach (a
builtin, a method or slot of a type the membrane lets it use, an export of a curated module)
is either priced there or listed here with a one-line reason why one call of it costs at most
time linear in what it is given (which already sits in memory under the memory limit) and
allocates at most a constant times that: the op tick of the call and the memory checks between
operations then bound it. ``tests/security/test_price_table_allowlist.py`` walks everything
exposed and fails naming any routine that is in neither table, so a routine added to an
allowlist without a decision here cannot ship.

``FREE`` is written by owner: ``"builtins"`` (the guest's builtins, by name),
``"type:module:Class"`` (what ``Class.__dict__`` or its MRO defines under the name),
``"curated:module"`` (a curated module's export) and ``"curated-type:module:Name"`` (what the
class a curated module exports as ``Name`` defines). ``free_routines()`` resolves it to the
routine objects (importing what it names: tests and tools only, never the cold start).
"""

from __future__ import annotations

import importlib
import itertools
import sys
import types
from typing import Any

__all__ = ["FREE", "free_routines", "routine_of"]

_CMP = "__eq__ __ne__ __lt__ __le__ __gt__ __ge__"


def _iterator_names(t: type) -> str:
    return " ".join(n for n in ("__iter__", "__next__", "__length_hint__") if n in t.__dict__)


_LINEAR_TEXT = (
    "one pass over the text (forward search is two-way: linear; reverse search is priced), result "
    "no longer than the input (what can grow past it is priced: encode, decode, hex, case maps)"
)
_CONSTANT_NUMBER = "fixed-size operands (C double/complex): constant time and result size"
_LINEAR_INT = "one pass over the digits of the operands: linear time, result no bigger than them"
_CONTAINER_STEP = "one element, or one pass over the container to copy, move or search it (linear)"
_NESTED_COMPARE = (
    "one comparison per element; a guest element's == ticks, plain nested data is the sharing "
    "walk's named gap (docs/security-model.md, single-call gaps)"
)
_ITERATOR_STEP = "one step of an iterator: constant work, the element is already in memory"
_DATETIME = "fixed-size fields (C ints): constant time and text of bounded length"
_DECIMAL = (
    "libmpdec under the curated context, whose precision and exponent range are capped: "
    "bounded by the cap"
)
_RETURNS = "constant work: returns self, its value or None"
_FREE_WRAPPER = "safe-eval's own wrapper: its C calls are priced where it makes them (its module)"

# owner -> {names: reason}
FREE: dict[str, dict[str, str]] = {
    "builtins": {
        "abs bin hex oct chr ord len callable id isinstance issubclass next":
            "one value: constant, or linear in an int's digits (bin/hex/oct text, abs)",
        "bool complex float": "parses or converts one value: linear in its text or digits",
        "object range slice reversed property staticmethod classmethod":
            "construct a fixed-size object holding references to their arguments",
        "BaseException Exception ArithmeticError AssertionError AttributeError BufferError EOFError "
        "FloatingPointError GeneratorExit ImportError ModuleNotFoundError IndexError KeyError "
        "LookupError MemoryError NameError NotImplementedError OSError OverflowError RecursionError "
        "ReferenceError RuntimeError StopIteration StopAsyncIteration SyntaxError IndentationError "
        "TabError SystemError TypeError UnboundLocalError UnicodeError UnicodeDecodeError "
        "UnicodeEncodeError UnicodeTranslateError ValueError ZeroDivisionError EnvironmentError IOError "
        "ConnectionError BrokenPipeError ConnectionAbortedError ConnectionRefusedError "
        "ConnectionResetError FileExistsError FileNotFoundError InterruptedError IsADirectoryError "
        "NotADirectoryError PermissionError ProcessLookupError TimeoutError ChildProcessError "
        "BlockingIOError BaseExceptionGroup ExceptionGroup Warning UserWarning DeprecationWarning "
        "PendingDeprecationWarning SyntaxWarning RuntimeWarning FutureWarning ImportWarning "
        "UnicodeWarning BytesWarning ResourceWarning EncodingWarning SystemExit KeyboardInterrupt":
            "exception classes: construction stores the arguments in a tuple",
        "getattr hasattr setattr delattr vars dir type super print eval exec":
            "the membrane's own builtins: attribute rules, output checked by size, nested runs "
            "under the same budget",
    },
    "type:builtins:str": {
        f"{_CMP} __contains__ __hash__ __iter__ __len__ count "
        "endswith find index isalnum isalpha isascii isdecimal isdigit isidentifier islower isnumeric "
        "isprintable isspace istitle isupper lstrip maketrans partition removeprefix "
        "removesuffix rstrip startswith strip": _LINEAR_TEXT,
    },
    "type:builtins:bytes": {
        f"{_CMP} __bytes__ __contains__ __hash__ __iter__ __len__ capitalize count "
        "endswith find fromhex index isalnum isalpha isascii isdigit islower isspace istitle "
        "isupper lower lstrip maketrans partition removeprefix removesuffix "
        "rstrip startswith strip swapcase title translate upper":
            _LINEAR_TEXT + " (case maps and translate: the same length)",
    },
    "type:builtins:bytearray": {
        f"{_CMP} __contains__ __delitem__ __iter__ __len__ __setitem__ append capitalize "
        "clear copy count endswith find fromhex index insert isalnum isalpha isascii "
        "isdigit islower isspace istitle isupper lower lstrip maketrans partition pop remove "
        "removeprefix removesuffix reverse rstrip startswith strip swapcase "
        "title translate upper":
            _LINEAR_TEXT + " (slice assignment from an iterator: it ticks per element)",
    },
    "type:builtins:int": {
        f"{_CMP} __abs__ __add__ __and__ __bool__ __ceil__ __float__ __floor__ __hash__ __index__ "
        "__int__ __invert__ __neg__ __or__ __pos__ __radd__ __rand__ __ror__ __rrshift__ __rshift__ "
        "__rsub__ __rtruediv__ __rxor__ __sub__ __truediv__ __trunc__ __xor__ as_integer_ratio "
        "bit_count bit_length conjugate from_bytes": _LINEAR_INT,
        "is_integer": "constant: an int is one (3.12+)",
    },
    "type:builtins:bool": {
        "__and__ __or__ __rand__ __repr__ __ror__ __rxor__ __xor__": "two bits: constant work",
        "__invert__ is_integer": "one bit: constant work (bool's own from 3.12 on)",
    },
    "type:builtins:float": {
        f"{_CMP} __abs__ __add__ __bool__ __ceil__ __divmod__ __float__ __floor__ __floordiv__ "
        "__hash__ __int__ __mod__ __mul__ __neg__ __pos__ __pow__ __radd__ __rdivmod__ __repr__ "
        "__rfloordiv__ __rmod__ __rmul__ __round__ __rpow__ __rsub__ __rtruediv__ __sub__ "
        "__truediv__ __trunc__ as_integer_ratio conjugate hex is_integer":
            _CONSTANT_NUMBER + " (int(), as_integer_ratio: at most 1 024 bits)",
        "fromhex": "parses its text: linear",
    },
    "type:builtins:complex": {
        f"{_CMP} __abs__ __add__ __bool__ __complex__ __hash__ __mul__ __neg__ __pos__ __pow__ "
        "__radd__ __repr__ __rmul__ __rpow__ __rsub__ __rtruediv__ __sub__ __truediv__ conjugate":
            _CONSTANT_NUMBER,
    },
    "type:builtins:list": {
        "__delitem__ __iter__ __len__ __reversed__ __setitem__ append clear copy insert "
        "pop reverse": _CONTAINER_STEP + " (slice assignment from an iterator: it ticks per element)",
        "__contains__ count index remove": _NESTED_COMPARE,
    },
    "type:builtins:tuple": {
        "__iter__ __len__": _CONTAINER_STEP,
        "__contains__ count index": _NESTED_COMPARE,
    },
    "type:builtins:dict": {
        "__delitem__ __iter__ __len__ __or__ __reversed__ __ror__ clear copy items keys pop popitem "
        "values": _CONTAINER_STEP,
        "__ior__": "an update from a mapping (linear) or from an iterable of pairs, which ticks",
        "__contains__ __getitem__ __setitem__ get setdefault":
            "one key hashed: a guest key's __hash__ ticks; a nested tuple key is the sharing walk's "
            "named gap (docs/security-model.md)",
    },
    "type:builtins:set": {
        "__and__ __iand__ __ior__ __isub__ __iter__ __ixor__ __len__ __or__ __rand__ __ror__ "
        "__rsub__ __rxor__ __sub__ __xor__ clear copy pop": _CONTAINER_STEP + " (set operands only)",
        "__contains__ add discard remove":
            "one element hashed: a guest __hash__ ticks; nested tuples are the sharing walk's gap",
    },
    "type:builtins:frozenset": {
        "__and__ __iter__ __len__ __or__ __rand__ __ror__ __rsub__ __rxor__ __sub__ __xor__ copy":
            _CONTAINER_STEP + " (set operands only)",
        "__contains__": "one element hashed: a guest __hash__ ticks; nested tuples are the sharing "
                        "walk's gap",
    },
    "type:builtins:range": {
        f"{_CMP} __bool__ __getitem__ __hash__ __iter__ __len__ __reversed__":
            "arithmetic on its three bounds: constant, or linear in their digits",
        "__repr__": "the text of its bounds: ints past 4 300 digits are refused by CPython's own "
                    "int_max_str_digits",
    },
    "type:builtins:slice": {
        f"{_CMP} indices": "compares or clamps its three members (a tuple compare)",
        "__hash__": "hashes its three members like a tuple (3.12+): a guest __hash__ ticks; nested "
                    "tuples are the sharing walk's named gap",
    },
    "type:builtins:NoneType": {
        "__bool__ __repr__": "constant work: a fixed answer",
        f"{_CMP} __hash__": "identity comparison, a fixed hash (NoneType's own from 3.12 on)",
    },
    "type:builtins:object": {
        f"{_CMP} __hash__ __repr__ __str__": "identity comparison, address hash, fixed-size text",
    },
    "type:builtins:property": {"deleter getter setter": "a new property object: constant"},
    "type:builtins:staticmethod": {"__call__ __repr__": "calls the function it wraps (which ticks)"},
    "type:builtins:classmethod": {"__repr__": "fixed-size text"},
    **{
        f"type:builtins:{t.__name__}": {_iterator_names(t): _ITERATOR_STEP}
        for t in (enumerate, zip, map, filter, reversed, type(iter("")), type(iter([])), type(iter(())),
                  type(iter({})), type(iter(set())), type(iter(range(0))), type(iter(b"")),
                  type(reversed([])))
    },
    "type:builtins:dict_keys": {
        f"{_CMP} __and__ __contains__ __iter__ __len__ __or__ __rand__ __reversed__ __ror__ __rsub__ "
        "__rxor__ __sub__ __xor__ isdisjoint": "set operations over the keys: linear, hashed once each",
    },
    "type:builtins:dict_values": {"__iter__ __len__ __reversed__": _ITERATOR_STEP},
    "type:builtins:dict_items": {
        f"{_CMP} __and__ __contains__ __iter__ __len__ __or__ __rand__ __reversed__ __ror__ __rsub__ "
        "__rxor__ __sub__ __xor__ isdisjoint": "set operations over the pairs: " + _NESTED_COMPARE,
    },
    "type:collections:Counter": {
        f"{_CMP} __add__ __and__ __delitem__ __iadd__ __iand__ __ior__ __isub__ __missing__ __neg__ "
        "__or__ __pos__ __sub__ copy total": "stdlib Python loops over the counts: one pass, ticking "
                                             "the guest's keys' hashes",
        "elements": "a lazy iterator (itertools.chain of repeats): one element a step",
        "most_common": "sorts the counts: n log n comparisons of ints",
    },
    "type:collections:OrderedDict": {
        f"{_CMP} __delitem__ __ior__ __iter__ __or__ __reversed__ __ror__ __setitem__ clear copy "
        "items keys move_to_end pop popitem setdefault values": _CONTAINER_STEP,
    },
    "type:collections:defaultdict": {
        "__copy__ __missing__ __or__ __ror__ copy": _CONTAINER_STEP + " (__missing__ calls the "
                                                    "factory: a guest call ticks)",
    },
    "type:collections:deque": {
        f"{_CMP} __add__ __contains__ __copy__ __delitem__ __getitem__ __iter__ __len__ __reversed__ "
        "__setitem__ append appendleft clear copy count index insert pop popleft remove reverse "
        "rotate": _CONTAINER_STEP + " (rotate: by n mod len)",
        "__bool__": "reads the length: constant (deque's own before 3.11)",
    },
    "type:collections:ChainMap": {
        "__bool__ __contains__ __copy__ __delitem__ __getitem__ __ior__ __iter__ __len__ __missing__ "
        "__or__ __ror__ __setitem__ clear copy fromkeys get new_child pop popitem":
            "stdlib Python over its maps: one lookup per map, copies linear",
    },
    "type:re:Pattern": {
        f"{_CMP} __copy__ __deepcopy__ __hash__ __repr__ findall finditer fullmatch match scanner "
        "search split sub subn": "CPython's re.Pattern reaches guest code only as string.Template's "
                                 "fixed class pattern (linear on its text); guest patterns are the "
                                 "curated re's",
    },
    "type:re:Match": {
        "__copy__ __deepcopy__ __getitem__ __repr__ end expand group groupdict groups span start":
            "a CPython re.Match of string.Template's fixed pattern: slices of its subject",
    },
    "type:functools:partial": {"__call__ __repr__": "calls what it wraps (priced there)"},
    "type:datetime:date": {
        f"{_CMP} __add__ __hash__ __radd__ __repr__ __rsub__ __str__ __sub__ ctime fromisocalendar "
        "fromisoformat fromordinal fromtimestamp isocalendar isoformat isoweekday replace timetuple "
        "today toordinal weekday": _DATETIME,
    },
    "type:datetime:datetime": {
        f"{_CMP} __add__ __hash__ __radd__ __repr__ __rsub__ __str__ __sub__ astimezone combine ctime "
        "date dst fromisoformat fromtimestamp isoformat now replace time timestamp timetuple timetz "
        "tzname utcfromtimestamp utcnow utcoffset utctimetuple": _DATETIME,
        "strptime": "CPython's _strptime: one regex per format, each directive once (a group name "
                    "may not repeat), matched without nested repeats",
    },
    "type:datetime:time": {
        f"{_CMP} __hash__ __repr__ __str__ dst fromisoformat isoformat replace tzname utcoffset":
            _DATETIME,
    },
    "type:datetime:timedelta": {
        f"{_CMP} __abs__ __add__ __bool__ __divmod__ __floordiv__ __hash__ __mod__ __mul__ __neg__ "
        "__pos__ __radd__ __rdivmod__ __repr__ __rfloordiv__ __rmod__ __rmul__ __rsub__ "
        "__rtruediv__ __str__ __sub__ __truediv__ total_seconds":
            _DATETIME + " (products beyond the range raise OverflowError)",
    },
    "type:datetime:timezone": {
        f"{_CMP} __hash__ __repr__ __str__ dst fromutc tzname utcoffset":
            "a fixed offset and its name: constant, or the length of the name",
    },
    "type:datetime:tzinfo": {"dst fromutc tzname utcoffset": "abstract: raise NotImplementedError"},
    "type:fractions:Fraction": {
        f"{_CMP} __abs__ __bool__ __complex__ __copy__ __deepcopy__ __float__ __hash__ __neg__ "
        "__pos__ as_integer_ratio conjugate from_decimal from_float is_integer limit_denominator":
            "one pass over the two int terms (compare: two products, priced by size in the "
            "interpreter's == ; hash: a modular power of fixed size)",
    },
    "curated-type:decimal:Decimal": {"from_float": _DECIMAL},
    "curated-type:fractions:Fraction": {
        "from_decimal from_float": "exact conversion of a float (bounded) or a capped-context Decimal",
    },
    "curated-type:statistics:NormalDist": {
        "from_samples": "one pass over the samples (made plain data first)",
    },
    "type:decimal:Decimal": {
        f"{_CMP} __abs__ __bool__ __complex__ __copy__ __deepcopy__ __float__ __hash__ __neg__ __pos__ "
        "adjusted as_tuple canonical compare compare_signal compare_total compare_total_mag "
        "conjugate copy_abs copy_negate copy_sign from_float is_canonical is_finite "
        "is_infinite is_nan is_normal is_qnan is_signed is_snan is_subnormal is_zero logb "
        "logical_and logical_invert logical_or logical_xor max max_mag min min_mag next_minus "
        "next_plus next_toward normalize number_class radix rotate "
        "same_quantum scaleb shift to_eng_string": _DECIMAL,
    },
    "type:decimal:Context": {
        "Etiny Etop __copy__ __repr__ abs canonical clear_flags clear_traps compare "
        "compare_signal compare_total compare_total_mag copy copy_abs copy_decimal copy_negate "
        "copy_sign create_decimal_from_float "
        "is_canonical is_finite is_infinite is_nan is_normal is_qnan is_signed is_snan "
        "is_subnormal is_zero logb logical_and logical_invert logical_or logical_xor max "
        "max_mag min min_mag next_minus next_plus next_toward normalize "
        "number_class radix rotate same_quantum scaleb shift "
        "to_eng_string to_sci_string":
            _DECIMAL,
    },
    "type:uuid:UUID": {f"{_CMP} __hash__ __int__ __repr__ __str__": "128 bits: constant"},
    "type:collections.abc:MutableMapping": {
        "__delitem__ __setitem__ clear pop popitem setdefault update":
            "abstract mixins in stdlib Python: one guest method call a step (ticks)",
    },
    "type:collections.abc:Mapping": {
        "__contains__ __eq__ __getitem__ get items keys values": "abstract mixins: guest calls (tick)",
    },
    "type:collections.abc:Sized": {"__len__": "abstract: returns 0"},
    "type:collections.abc:Iterable": {"__iter__": "abstract: an empty generator"},
    "type:collections.abc:Container": {"__contains__": "abstract: returns False"},
    "type:collections.abc:Reversible": {"__reversed__": "abstract: an empty generator"},
    "type:collections.abc:MutableSequence": {
        "__delitem__ __iadd__ __setitem__ append clear extend insert pop remove reverse":
            "abstract mixins in stdlib Python: one guest method call a step (ticks)",
    },
    "type:collections.abc:Sequence": {
        "__contains__ __getitem__ __iter__ __reversed__ count index":
            "abstract mixins in stdlib Python: one guest method call a step (ticks)",
    },
    "type:contextlib:AbstractContextManager": {"__enter__ __exit__": _RETURNS},
    "type:contextlib:AbstractAsyncContextManager": {"__aenter__ __aexit__": _RETURNS},
    "type:dataclasses:Field": {"__repr__": "the text of a few fields"},
    "type:functools:_lru_cache_wrapper": {
        "__call__ __copy__ __deepcopy__ cache_clear cache_info":
            "calls what it wraps (ticks); the cache grows one entry per guest call",
    },
    # ``cache_info()``'s namedtuple (the class is ``_CacheInfo``; it calls itself ``CacheInfo``)
    "type:functools:_CacheInfo": {"__repr__": "the text of four ints"},
    "type:_hashlib:HASH": {"__repr__ copy digest hexdigest update": "a fixed-size digest; update "
                                                                    "hashes its data once (linear)"},
    "type:_blake2:blake2b": {"copy digest hexdigest": "a fixed-size digest"},
    "type:_blake2:blake2s": {"copy digest hexdigest": "a fixed-size digest"},
    **{
        f"type:itertools:{name}": {_iterator_names(getattr(itertools, name)): _ITERATOR_STEP}
        for name in ("accumulate", "compress", "dropwhile", "filterfalse", "groupby", "islice",
                     "pairwise", "starmap", "takewhile", "zip_longest", "_grouper")
    },
    "type:itertools:chain": {"__iter__ __next__ from_iterable": _ITERATOR_STEP},
    "type:itertools:_tee": {"__iter__ __next__ __copy__": _ITERATOR_STEP + " (copy: one new iterator)"},
    "type:statistics:NormalDist": {
        f"{_CMP} __add__ __hash__ __mul__ __neg__ __pos__ __radd__ __repr__ __rmul__ __rsub__ __sub__ "
        "__truediv__ cdf inv_cdf overlap pdf zscore": "two floats: constant",
        "from_samples": "one pass over the samples (the curated statistics makes them plain data)",
    },
    "type:string:Template": {"get_identifiers is_valid": "one pass of the fixed pattern: linear"},
    "type:time:struct_time": {"__repr__": "nine fields: constant"},
    "curated:abc": {
        "abstractmethod": "sets one attribute: constant work",
        "ABC": "abstract base: construction makes an empty instance",
    },
    "curated:collections": {
        "ChainMap": "construction wraps its arguments: one pass (an iterator argument ticks per "
                    "element)",
    },
    "curated:collections.abc": {
        "Awaitable Coroutine AsyncIterable AsyncIterator AsyncGenerator Hashable Iterable Iterator "
        "Generator Reversible Sized Container Callable Collection Set MutableSet Mapping "
        "MutableMapping MappingView KeysView ItemsView ValuesView Sequence MutableSequence ByteString":
            "abstract bases: construction is refused or makes an empty instance",
    },
    "curated:asyncio": {
        "run gather sleep create_task wait_for as_completed iscoroutine iscoroutinefunction":
            "the interpreter's own event loop: guest coroutines tick, sleep is bounded by the deadline",
    },
    "curated:base64": {
        "b64encode b64decode standard_b64encode standard_b64decode urlsafe_b64encode "
        "urlsafe_b64decode b32encode b32decode b32hexencode b32hexdecode b16encode b16decode "
        "b85encode b85decode a85encode a85decode encodebytes decodebytes":
            "one pass over the data, output at most twice the input (b16)",
    },
    "curated:bisect": {
        "bisect bisect_left bisect_right insort insort_left insort_right":
            "log n comparisons (guest ones tick) and one list insertion (linear)",
    },
    "curated:cmath": {
        "acos acosh asin asinh atan atanh cos cosh exp isclose isfinite isinf isnan log log10 phase "
        "polar rect sin sinh sqrt tan tanh": _CONSTANT_NUMBER,
    },
    "curated:decimal": {"getcontext localcontext Context": "the curated context: precision and "
                                                          "exponents capped"},
    "curated:enum": {"unique": "one pass over the members"},
    "curated:functools": {
        "reduce": "calls the function once per element (guest calls and priced routines tick)",
        "lru_cache cache cmp_to_key": "wrap a function: constant",
    },
    "curated:hashlib": {
        "md5 sha1 sha224 sha256 sha384 sha512 sha3_224 sha3_256 sha3_384 sha3_512 shake_128 "
        "shake_256 new": "hash the initial data once: linear",
    },
    "curated:heapq": {
        "heappush heappop heapreplace heappushpop": "log n comparisons",
        "heapify merge nlargest nsmallest": "n log n comparisons over metered input (it ticks)",
    },
    "curated:itertools": {"count cycle repeat": _FREE_WRAPPER + " (lazy, one element a step)"},
    "curated:json": {"dumps loads": _FREE_WRAPPER + " (sizes and indent checked)"},
    "curated:math": {
        "acos acosh asin asinh atan atan2 atanh cbrt copysign cos cosh degrees erf erfc exp exp2 "
        "expm1 fabs fmod frexp gamma isclose isfinite isinf isnan ldexp lgamma log log10 log1p log2 "
        "modf nextafter radians remainder sin sinh sqrt tan tanh ulp":
            _CONSTANT_NUMBER + " (an int argument is converted to a float: linear in its digits)",
        "dist fsum hypot sumprod": "one pass over metered iterables of floats",
        "fma": _CONSTANT_NUMBER + " (3.13+)",
    },
    "curated:operator": {
        "abs and_ index inv invert ior iand ixor irshift neg not_ or_ pos rshift xor truth is_ is_not "
        "length_hint matmul imatmul": _LINEAR_INT + " (or a guest dunder, which ticks)",
        "contains countOf indexOf": _NESTED_COMPARE + " (metered iterables)",
        "setitem delitem": _CONTAINER_STEP,
    },
    "type:safe_eval.membrane.modules.random:Random": {
        "seed random uniform triangular randint randrange choice shuffle gauss normalvariate "
        "lognormvariate expovariate vonmisesvariate gammavariate betavariate paretovariate "
        "weibullvariate getstate setstate":
            "the run's own generator: constant, or one pass (shuffle, seed of a str)",
        "choices sample getrandbits randbytes": _FREE_WRAPPER + " (k and n checked)",
    },
    "curated:re": {
        "RegexFlag": "an enum: construction looks a member up",
        "compile match fullmatch search findall finditer split sub subn escape":
            _FREE_WRAPPER + " (deadline, compiled size, matcher state, output as it grows)",
    },
    "curated:statistics": {
        "mean fmean geometric_mean harmonic_mean median median_low median_high median_grouped mode "
        "multimode pstdev pvariance stdev variance covariance correlation linear_regression":
            "the curated statistics: plain-data inputs read into a list (metered), exact Fraction "
            "sums of them (their sizes are the inputs')",
    },
    "curated:string": {"capwords": "split and join: linear"},
    "curated:textwrap": {"wrap fill shorten dedent indent": _FREE_WRAPPER + " (sizes checked)"},
    "curated:time": {
        "time time_ns monotonic monotonic_ns perf_counter perf_counter_ns process_time "
        "process_time_ns gmtime localtime mktime asctime ctime": "a clock or nine fields: constant",
        "strptime": "CPython's _strptime: one regex per format, each directive once, no nested repeats",
        "sleep": _FREE_WRAPPER + " (never past the deadline)",
    },
    "curated:typing": {
        "Any Protocol SupportsAbs SupportsFloat SupportsIndex SupportsInt SupportsRound":
            "typing classes: construction is refused (Any, protocols)",
        "Callable ClassVar Final Generic Literal Optional Tuple Type TypeVar Union AbstractSet "
        "ByteString Container ContextManager Hashable ItemsView Iterable Iterator KeysView Mapping "
        "MappingView MutableMapping MutableSequence MutableSet Sequence Sized ValuesView Awaitable "
        "AsyncIterator AsyncIterable Coroutine Collection AsyncGenerator Reversible ChainMap Counter "
        "Deque Dict DefaultDict List OrderedDict Set FrozenSet Generator TypedDict NoReturn Never "
        "Self LiteralString TypeAlias Annotated ParamSpec Concatenate TypeGuard AnyStr Pattern Match "
        "NewType Required NotRequired Unpack TypeVarTuple get_type_hints overload final "
        "no_type_check runtime_checkable": _FREE_WRAPPER + " (typing forms: one object per use)",
        "cast assert_never assert_type": "return or raise on their argument: constant",
    },
    "curated:uuid": {"uuid3 uuid4 uuid5": "a hash of the name (linear) or 16 random bytes"},
}


def routine_of(value: Any) -> Any:
    """The routine behind a callable the guest is handed: a bound method's function (for a
    method of an instance, what its class defines under the name), else the value itself."""
    if isinstance(value, types.MethodType | staticmethod | classmethod):
        return routine_of(value.__func__)  # a staticmethod around a bound classmethod: its function
    owner = getattr(value, "__self__", None)
    if (isinstance(value, types.BuiltinMethodType) and owner is not None
            and not isinstance(owner, types.ModuleType) and not isinstance(owner, type)):
        return defined(type(owner), value.__name__)
    return value


def defined(cls: type, name: str) -> Any:
    """What the first class in ``cls``'s MRO defining ``name`` holds under it (the raw
    descriptor: no binding)."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name]
    raise KeyError(f"{cls.__qualname__}.{name}")


# The table is the union over the supported Pythons: the routines some of them lack, with the
# first and last version that has each (anything else must resolve everywhere: a typo fails)
_NEWEST = (3, 99)
_ONLY_IN: dict[str, tuple[tuple[int, int], tuple[int, int]]] = {
    **dict.fromkeys(
        ("builtins.BaseExceptionGroup", "builtins.ExceptionGroup", "type:builtins:bytes.__bytes__",
         "type:builtins:complex.__complex__", "type:string:Template.get_identifiers",
         "type:string:Template.is_valid", "curated:math.cbrt", "curated:math.exp2",
         "curated:typing.Never", "curated:typing.Self", "curated:typing.LiteralString",
         "curated:typing.Required", "curated:typing.NotRequired", "curated:typing.Unpack",
         "curated:typing.TypeVarTuple", "curated:typing.assert_never", "curated:typing.assert_type"),
        ((3, 11), _NEWEST)),
    **dict.fromkeys(
        ("type:builtins:int.is_integer", "type:builtins:bool.is_integer",
         "type:fractions:Fraction.is_integer", "curated:math.sumprod"),
        ((3, 12), _NEWEST)),
    "curated:math.fma": ((3, 13), _NEWEST),
    "type:collections:deque.__bool__": ((3, 10), (3, 10)),
}


def free_routines() -> dict[Any, str]:
    """``FREE`` resolved to ``{routine: reason}`` (imports every module it names)."""
    out: dict[Any, str] = {}
    for owner, table in FREE.items():
        resolve = _resolver(owner)
        for names, reason in table.items():
            for name in names.split():
                span = _ONLY_IN.get(f"{owner}.{name}")
                if span is not None and not span[0] <= sys.version_info[:2] <= span[1]:
                    continue
                routine = resolve(name)
                out[_key(routine)] = reason
                out[_key(routine_of(routine))] = reason  # a classmethod's function too
    return out


# builtin types with no name in ``builtins`` (views, iterators, NoneType)
_UNNAMED_TYPES: tuple[type, ...] = (
    type(None), type({}.keys()), type({}.values()), type({}.items()), type(iter("")), type(iter([])),
    type(iter(())), type(iter({})), type(iter(set())), type(iter(range(0))), type(iter(b"")),
    type(reversed([])),
)
_BUILTIN_TYPES: dict[str, type] = {cls.__name__: cls for cls in _UNNAMED_TYPES}


def _key(routine: Any) -> Any:
    try:
        hash(routine)
    except TypeError:
        return id(routine)
    return routine


def _resolver(owner: str) -> Any:
    kind, _, rest = owner.partition(":")
    if kind == "builtins":
        from safe_eval.membrane.builtins import BUILTINS

        return lambda name: routine_of(BUILTINS[name])
    if kind == "type":
        module, _, qualname = rest.rpartition(":")
        cls: Any = _BUILTIN_TYPES.get(qualname) if module == "builtins" else None
        if cls is None:
            cls = importlib.import_module(module)
            for part in qualname.split("."):
                cls = getattr(cls, part)
        return lambda name: defined(cls, name)
    if kind == "curated-type":  # a class a curated module makes (``_guarded_class``)
        module, _, name = rest.partition(":")
        made = curated_exports(module)[name]
        return lambda attr: routine_of(defined(made, attr))
    if kind == "curated":
        exports = curated_exports(rest)
        return lambda name: routine_of(exports[name])
    raise ValueError(f"unknown owner {owner!r}")


_exports: dict[str, dict[str, Any]] = {}


def curated_exports(module: str) -> dict[str, Any]:
    """What the curated module ``module`` hands the guest, the priced routines in place
    (``GUARDED_MODULE_ATTRS``), before metering: built once here, so the table and the walk of
    ``tests/security/test_price_table_allowlist.py`` see the same objects."""
    exports = _exports.get(module)
    if exports is None:
        from safe_eval.limits.guards import GUARDED_MODULE_ATTRS
        from safe_eval.membrane.modules import _FILES

        impl = importlib.import_module(f"safe_eval.membrane.modules.{_FILES[module]}")
        exports = _exports[module] = {**impl.build()}
        for name, guard in GUARDED_MODULE_ATTRS.get(module, {}).items():
            if name in exports:
                exports[name] = guard
        # the classes the guest is handed are the module wrapper's own (a build makes new
        # stand-ins: ``_guarded_class``)
        handed = _handed_classes(module)
        for name, value in handed.items():
            if name in exports:
                exports[name] = value
    return exports


def _handed_classes(module: str) -> dict[str, Any]:
    from safe_eval.membrane.modules import CURATED, import_module

    class _Everything:
        imports = CURATED

    wrapper = import_module(module, _Everything())
    attrs: dict[str, Any] = object.__getattribute__(wrapper, "_se_attrs")
    return {name: value for name, value in attrs.items() if isinstance(value, type)}
