log = []
for i in range(4):
    try:
        if i == 1:
            continue
        if i == 3:
            break
    except ValueError:
        log.append("except")
    else:
        log.append(f"else {i}")
def f():
    try:
        return "body"
    except KeyError:
        return "except"
    else:
        log.append("else after return")
        return "else"
(log, f())
