# requires: 3.11
eg = ExceptionGroup("all", [ValueError(1), ExceptionGroup("inner", [TypeError(2), ValueError(3)])])
match, rest = eg.split(ValueError)
sub = eg.subgroup(lambda e: isinstance(e, TypeError))
(repr(match), repr(rest), repr(sub), len(eg.exceptions))
