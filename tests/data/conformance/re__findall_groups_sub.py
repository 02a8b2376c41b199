import re
text = "Order 12 costs $30, order 7 costs $4"
(re.findall(r"\d+", text), re.findall(r"order (\d+) costs \$(\d+)", text, re.I), re.sub(r"\d+", lambda m: str(int(m.group()) * 2), text), re.split(r"[,\s]+", "a, b  c,d"), re.sub(r"(\w+)@(\w+)", r"\2 at \1", "me@home"))
