s = "python"
([c for c in s], s[::-1], s[1:4], s[-1], list(zip(s, s[1:])), "".join(sorted(s)), s * 0, s[10:])
