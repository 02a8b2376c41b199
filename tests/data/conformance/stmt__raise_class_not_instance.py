try:
    raise IndexError
except IndexError as e:
    r = (type(e).__name__, e.args, str(e))
r
