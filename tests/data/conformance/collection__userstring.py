from collections import UserString
from collections.abc import Sequence


class Shout(UserString):
    def shout(self):
        return self.upper() + "!"


s = UserString("Hello, World")
out = [str(s), repr(s), len(s), s[0], type(s[0]).__name__, repr(s[:5]), "World" in s]
out.append((repr(s.lower()), repr(s.upper()), repr(s.center(16, "*")), repr(s.zfill(14))))
out.append((s.find("o"), s.rfind("o"), s.count("l"), s.index("W"), s.startswith("He"), s.endswith("d")))
out.append((s.split(", "), s.partition(","), repr(s.replace("l", "L", 2)), repr(s.strip("Hd"))))
out.append((repr(s + "!"), repr("> " + s), repr(s * 2), repr(UserString("%s-%s") % ("a", "b"))))
out.append((s == "Hello, World", s < "Z", s > UserString("A"), hash(s) == hash("Hello, World")))
out.append((int(UserString("42")), float(UserString("2.5")), UserString("abc").isalpha()))
out.append((repr(UserString(12)), isinstance(s, Sequence), isinstance(s, str), "-".join(str(c) for c in UserString("abc")), type(next(iter(s))).__name__))
sh = Shout("hey")
out.append((repr(sh.shout()), type(sh.shout()).__name__, type(sh.title()).__name__))
out.append(([str(c) for c in reversed(UserString("abc"))], s.encode(), s.format(), repr(s.expandtabs())))
out
