z = complex(3, 4)
w = 1 - 2j
(z + w, z * w, z / w, abs(z), z.real, z.imag, z.conjugate(), complex("1+2j"), z == 3 + 4j, (1j) ** 2)
