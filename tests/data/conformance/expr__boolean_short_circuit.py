calls = []
def t(v):
    calls.append(v)
    return v
r = (t(0) and t(1), t(2) or t(3), t(0) or t("") or t(None), not t([]), t(1) and t(2) and t(3))
(r, calls)
