import textwrap
msg = "The quick brown fox jumps over the lazy dog and keeps running far away"
(textwrap.wrap(msg, 20), textwrap.fill(msg, 30), textwrap.shorten(msg, 25), textwrap.shorten("short", 25))
