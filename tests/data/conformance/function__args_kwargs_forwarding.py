def inner(*args, **kwargs):
    return args, sorted(kwargs.items())
def outer(*args, **kwargs):
    return inner(*args, 0, **kwargs, extra=True)
(outer(1, 2, k="v"), outer())
