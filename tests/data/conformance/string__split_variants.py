s = "  a,b,,c  "
(s.split(","), s.split(), "a b  c".split(" "), "a,b,c".split(",", 1), "a,b,c".rsplit(",", 1), "line1\nline2\r\nline3".splitlines(), "x\ny\n".splitlines(True), "".split(","), "".split())
