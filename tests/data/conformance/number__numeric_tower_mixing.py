from fractions import Fraction
(1 + 2.0, type(1 + 2.0).__name__, Fraction(1, 2) + 1, type(Fraction(1, 2) + 0.5).__name__, 2 * 1j, 3 // 2.0, 3 % 2.5, -3 ** 0.5 if False else (-8) ** (1 / 3) != 0)
