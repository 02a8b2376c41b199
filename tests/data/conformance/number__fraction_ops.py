from fractions import Fraction
a = Fraction(1, 3)
b = Fraction("2/5")
(a + b, a * b, a / b, a - b, a ** 2, Fraction(0.75), Fraction(6, 4), float(a), a < b, Fraction(1, 3).limit_denominator(10), Fraction(3, 1) == 3, str(Fraction(-7, 2)))
