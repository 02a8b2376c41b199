log = []
def tag(name):
    def deco(fn):
        log.append(f"decorate {name}")
        def wrapper(*a):
            return f"<{name}>{fn(*a)}</{name}>"
        return wrapper
    return deco
@tag("b")
@tag("i")
def text(s):
    return s
(text("hi"), log)
