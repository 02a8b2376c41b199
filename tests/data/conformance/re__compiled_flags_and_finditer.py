import re
pat = re.compile(r"^(\w+):\s*(.*)$", re.MULTILINE)
text = "name: Ann\nage: 30\nbad line\ncity:  Oslo"
([m.groups() for m in pat.finditer(text)], pat.pattern, re.compile("a.c", re.DOTALL).match("a\nc") is not None, re.escape("a.b*c"), re.subn("a", "b", "banana"))
