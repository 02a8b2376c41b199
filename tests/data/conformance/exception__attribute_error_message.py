try:
    (1).x
except AttributeError as e:
    r = str(e)
r
