try:
    {"a": 1}["missing key"]
except KeyError as e:
    r = (str(e), repr(e), e.args)
r
