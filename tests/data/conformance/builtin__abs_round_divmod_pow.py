(abs(-3), abs(-2.5), abs(3 + 4j), round(2.5), round(3.5), round(-0.5), round(1.2345, 2), round(1234, -2), divmod(17, 5), divmod(-17, 5), pow(2, 10), pow(2, 10, 1000), pow(3, -1, 7), pow(2.0, 0.5))
