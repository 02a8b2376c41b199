def find(xs, target):
    i = 0
    while i < len(xs):
        if xs[i] == target:
            break
        i += 1
    else:
        return "missing"
    return i
(find([4, 5, 6], 6), find([4, 5, 6], 9), find([], 1))
