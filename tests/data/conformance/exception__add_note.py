# requires: 3.11
try:
    try:
        int("x")
    except ValueError as e:
        e.add_note("while parsing the config")
        raise
except ValueError as e:
    r = (str(e), e.__notes__)
r
