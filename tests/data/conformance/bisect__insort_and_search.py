import bisect
a = [1, 3, 3, 7]
bisect.insort(a, 4)
bisect.insort_left(a, 3)
def grade(score, cuts=(60, 70, 80, 90), letters="FDCBA"):
    return letters[bisect.bisect(cuts, score)]
(a, bisect.bisect_left(a, 3), bisect.bisect_right(a, 3), [grade(s) for s in (33, 99, 77, 70, 89, 90, 100)])
