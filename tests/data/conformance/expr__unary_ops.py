x = 5
(-x, +x, ~x, not x, -(-x), - - x, +True, -False, ~True, not None)
