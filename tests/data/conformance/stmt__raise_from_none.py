try:
    try:
        {}["a"]
    except KeyError:
        raise ValueError("clean") from None
except ValueError as e:
    r = (str(e), e.__cause__, e.__suppress_context__, type(e.__context__).__name__)
r
