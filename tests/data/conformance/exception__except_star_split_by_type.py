# requires: 3.11
log = []
try:
    raise ExceptionGroup("batch", [ValueError("v1"), TypeError("t1"), ValueError("v2")])
except* ValueError as eg:
    log.append(("values", [str(e) for e in eg.exceptions]))
except* TypeError as eg:
    log.append(("types", [str(e) for e in eg.exceptions]))
log
