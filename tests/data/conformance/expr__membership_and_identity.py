d = {"k": 1}
s = "hello"
x = None
y = [1]
z = y
("k" in d, 1 in d, "ell" in s, "z" not in s, x is None, y is z, y is not [1], y == [1], 3 in range(0, 10, 3), 4 in range(0, 10, 3))
