import cmath
(cmath.sqrt(-1), cmath.phase(-1), abs(cmath.exp(1j * cmath.pi) + 1) < 1e-12, cmath.polar(1j), cmath.rect(1, 0))
