s = "banana"
(s.find("an"), s.rfind("an"), s.find("x"), s.index("n"), s.rindex("a"), s.count("a"), s.count("an"), s.count(""), s.startswith(("x", "ba")), s.endswith("na", 0, 4))
