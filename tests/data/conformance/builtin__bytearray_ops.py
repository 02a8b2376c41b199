b = bytearray(b"hello")
b[0] = ord("j")
b.extend(b"!!")
b.append(63)
del b[-1]
(bytes(b), b.decode(), len(b), b.find(b"l"), bytearray(3), bytes(b.upper()), b[1:3])
