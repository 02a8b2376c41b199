try:
    b"\xff\xfe\xfa".decode("utf-8")
except UnicodeDecodeError as e:
    r = (type(e).__name__, e.reason, e.start)
r
