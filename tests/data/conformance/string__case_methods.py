s = "hello World ß"
(s.upper(), s.lower(), s.title(), s.capitalize(), s.swapcase(), s.casefold(), "ǅ".lower(), "python is fun".title())
