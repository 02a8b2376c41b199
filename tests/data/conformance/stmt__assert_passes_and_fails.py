assert 1 + 1 == 2, "math"
try:
    assert [], "empty list is falsy"
except AssertionError as e:
    msg = str(e)
try:
    assert False
except AssertionError as e:
    bare = e.args
(msg, bare)
