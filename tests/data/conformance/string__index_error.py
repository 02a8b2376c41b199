try:
    "abc".index("z")
except ValueError as e:
    r = str(e)
r
