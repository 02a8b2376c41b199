from functools import wraps
def logged(fn):
    @wraps(fn)
    def wrapper(*a, **k):
        return ("logged", fn(*a, **k))
    return wrapper
@logged
def greet(name):
    return f"hi {name}"
(greet("x"), greet.__name__, greet.__wrapped__("y"))
