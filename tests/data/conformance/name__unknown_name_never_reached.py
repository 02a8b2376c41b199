def maybe(flag):
    if flag:
        return not_defined_anywhere()
    return "skipped"
maybe(False)
