t = str.maketrans("abc", "xyz", "d")
("aaa".replace("a", "b", 2), "hello".replace("l", ""), "abcd".translate(t), "a-b".translate({ord("-"): " "}), "x".replace("", "-"))
