from decimal import Decimal, ROUND_HALF_UP
a = Decimal("0.1")
b = Decimal("0.2")
(a + b, a + b == Decimal("0.3"), Decimal("1.005").quantize(Decimal("0.01"), rounding=ROUND_HALF_UP), Decimal(10) / Decimal(4), Decimal("3.14159").quantize(Decimal("0.001")), str(Decimal("1e3")), Decimal("-0"), Decimal("2").sqrt().quantize(Decimal("0.0001")), Decimal("7") // Decimal("2"), Decimal("7") % Decimal("-2"))
