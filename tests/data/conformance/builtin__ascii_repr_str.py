(ascii("café"), repr("it's"), repr('say "hi"'), str(b"x"), repr(1.0), repr([1, "a", None]), ascii(["ü"]), repr("\n\t"), str(3e20), repr(1e16), repr(0.1))
