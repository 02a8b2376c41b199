def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)
r = fact(500)
(len(str(r)), r % 1000003)
