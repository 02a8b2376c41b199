[(a // b, a % b, divmod(a, b)) for a in (7, -7) for b in (2, -2)] + [(-7.5 // 2, -7.5 % 2)]
