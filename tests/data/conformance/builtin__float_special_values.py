inf = float("inf")
nan = float("nan")
(inf > 1e308, -inf < 0, inf - inf != inf - inf, nan != nan, float("-inf"), repr(nan), 1e308 * 10, float("1_0.5"), (0.1).hex(), float.fromhex("0x1.8p1"), (2.5).is_integer(), (4.0).is_integer())
