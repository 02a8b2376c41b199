s = "naïve €"
b = s.encode("utf-8")
(b, len(b), b.decode("utf-8"), s.encode("ascii", "replace"), s.encode("ascii", "ignore"), b"\xff".decode("latin-1"), s.encode("utf-16-le")[:4], "x".encode())
