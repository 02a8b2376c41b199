import math
(math.floor(-2.5), math.ceil(-2.5), math.trunc(-2.7), math.sqrt(2), math.isqrt(17), math.gcd(12, 18), math.lcm(4, 6), math.factorial(10), math.comb(10, 3), math.perm(5, 2), math.prod([1, 2, 3, 4]), math.fsum([0.1] * 10))
