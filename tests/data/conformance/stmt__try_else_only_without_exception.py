log = []
for v in ("1", "x"):
    try:
        n = int(v)
    except ValueError:
        log.append("bad " + v)
    else:
        log.append(n * 2)
    finally:
        log.append("done")
log
