x, y = 0b1100, 0b1010
(x & y, x | y, x ^ y, ~x, x << 3, x >> 2, -x >> 1, bin(x ^ y), hex(255), oct(8))
