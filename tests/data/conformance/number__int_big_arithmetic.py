a = 2 ** 100
b = 3 ** 50
(a * b, a // b, a % b, -a // 7, len(str(a)), a.bit_length(), (a + 1) % 97, pow(a, 3, 10 ** 9 + 7), str(10 ** 30)[::7])
