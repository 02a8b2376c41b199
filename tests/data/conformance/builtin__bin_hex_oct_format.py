(bin(10), bin(-10), hex(-255), oct(64), format(255, "b"), format(255, "#x"), format(255, "08b"), int("0o17", 8), int("z", 36))
