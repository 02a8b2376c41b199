def append(x, acc=[]):
    acc.append(x)
    return acc
def safe(x, acc=None):
    acc = [] if acc is None else acc
    acc.append(x)
    return acc
(append(1), append(2), safe(1), safe(2))
