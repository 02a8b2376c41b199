def f(x):
    try:
        return [1][x]
    except (IndexError, TypeError) as e:
        return type(e).__name__
    except:
        return "bare"
(f(0), f(5), f("a"))
