("ab".center(6, "*"), "ab".ljust(5, "."), "ab".rjust(5), "42".zfill(5), "-42".zfill(5), "a\tb".expandtabs(4), "x".center(4))
