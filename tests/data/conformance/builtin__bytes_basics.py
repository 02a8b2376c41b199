b = b"abc\x00\xff"
(len(b), b[0], b[-1], list(b[:3]), b.hex(), bytes.fromhex("41 42"), b"a,b".split(b","), bytes([72, 105]), b"x" * 3, b.startswith(b"ab"), bytes(range(3)))
