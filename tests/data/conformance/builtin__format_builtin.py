(format(3.14159, ".2f"), format(42, "5d"), format("x", "^5"), format(1234567, ","), format(0.25, "%"), format(12, "x"), format(-1, "+d"), format(1e6, "e"), format(1e-5, "g"), format(255, "_b"))
