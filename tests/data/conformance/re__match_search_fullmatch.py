import re
m = re.search(r"(?P<user>\w+)@(?P<host>[\w.]+)", "contact: bob@example.com now")
(m.group(), m.group("user"), m.groupdict(), m.start(), m.span("host"), re.match(r"\d", "a1") is None, bool(re.fullmatch(r"[a-z]+", "abc")), re.fullmatch(r"[a-z]+", "abc1"))
