def f(a, b):
    return a
out = []
for call in (lambda: f(1), lambda: f(1, 2, 3), lambda: f(1, b=2, c=3), lambda: f(1, a=2)):
    try:
        call()
    except TypeError as e:
        out.append(str(e))
out
