try:
    raise KeyboardInterrupt("ctrl-c")
except Exception:
    r = "wrong"
except KeyboardInterrupt as e:
    r = ("interrupted", str(e))
r
