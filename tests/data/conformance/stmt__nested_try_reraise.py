def parse(s):
    try:
        try:
            return int(s)
        except ValueError:
            raise KeyError(s)
    except KeyError as e:
        return f"key {e}"
(parse("3"), parse("z"))
