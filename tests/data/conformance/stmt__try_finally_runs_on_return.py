log = []
def f(x):
    try:
        if x:
            return "early"
        log.append("body")
    finally:
        log.append("finally")
    return "late"
(f(True), f(False), log)
