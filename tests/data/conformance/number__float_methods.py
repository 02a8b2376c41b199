x = 6.75
(x.as_integer_ratio(), x.is_integer(), x.hex(), float.fromhex(x.hex()) == x, (3.0).is_integer(), x.real, x.conjugate(), (-2.5).__abs__())
