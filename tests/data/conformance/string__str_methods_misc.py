("Hello".center(11, "="), "a b c".split(maxsplit=1), "tEsT".swapcase(), "x".join("abc"), "%s" % [1], str(None), "abc".upper().lower(), " ".isspace(), "AbC".lower().count("c"))
