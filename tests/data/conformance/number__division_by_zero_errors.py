out = []
for expr in (lambda: 1 / 0, lambda: 1 // 0, lambda: 1 % 0, lambda: 1.0 / 0, lambda: divmod(1, 0), lambda: 0 ** -1):
    try:
        expr()
    except ZeroDivisionError as e:
        out.append(str(e))
out
