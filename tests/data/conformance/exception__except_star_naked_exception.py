# requires: 3.11
try:
    raise ValueError("plain")
except* ValueError as eg:
    r = (type(eg).__name__, [str(e) for e in eg.exceptions])
r
