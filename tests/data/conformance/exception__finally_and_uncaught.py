log = []
try:
    log.append("try")
    raise RuntimeError("oops")
finally:
    log.append("finally")
