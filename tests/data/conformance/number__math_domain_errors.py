import math
out = []
for f in (lambda: math.sqrt(-1), lambda: math.log(0), lambda: math.factorial(-1), lambda: math.acos(2)):
    try:
        f()
    except ValueError as e:
        out.append(str(e))
out
