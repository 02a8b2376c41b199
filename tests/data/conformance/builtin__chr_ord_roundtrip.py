(ord("A"), chr(97), ord("€"), chr(0x1F600) == "\U0001F600", [chr(ord(c) + 1) for c in "HAL"], "".join(map(chr, range(65, 70))))
