def classify(n):
    return "neg" if n < 0 else "zero" if n == 0 else "small" if n < 10 else "big"
[classify(n) for n in (-3, 0, 4, 40)]
