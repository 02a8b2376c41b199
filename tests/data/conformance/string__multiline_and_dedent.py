import textwrap
text = """\
    first
      second
    third"""
(textwrap.dedent(text), text.count("\n"), textwrap.indent("a\nb", "> "))
