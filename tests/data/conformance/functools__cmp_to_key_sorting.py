from functools import cmp_to_key
def compare(a, b):
    if len(a) != len(b):
        return len(a) - len(b)
    return (a > b) - (a < b)
(sorted(["ccc", "a", "bb", "aa", "b"], key=cmp_to_key(compare)), sorted([3, 1, 2], key=cmp_to_key(lambda a, b: b - a)))
