s = ("hello "
     "world"
     f" {1 + 1}")
(s, len(s), "a" "b" == "ab")
