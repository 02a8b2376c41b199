(str(ValueError()), str(ValueError("a")), str(ValueError("a", "b")), repr(TypeError("t")), ValueError(1, 2).args, str(KeyError()), repr(Exception()))
