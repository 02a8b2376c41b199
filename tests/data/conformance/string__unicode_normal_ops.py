s = "Straße café"
(s.upper(), len(s), s.casefold(), s.encode("utf-8")[:8], [ord(c) for c in "é"], "é" == "\u00e9", s.split(" "))
