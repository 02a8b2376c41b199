out = []
for args in ([[]], [[], 1]):
    try:
        min(*args)
    except (ValueError, TypeError) as e:
        out.append((type(e).__name__, str(e)))
out
