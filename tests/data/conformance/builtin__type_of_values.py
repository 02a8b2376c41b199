[type(v).__name__ for v in (1, 1.0, "s", b"b", [], (), {}, set(), None, True, 1j, range(1), len, type)]
