def chunks(xs, n):
    for i in range(0, len(xs), n):
        yield xs[i:i + n]
def flatten(xss):
    for xs in xss:
        yield from xs
(list(chunks(list(range(7)), 3)), list(flatten(chunks("abcdefg", 2))))
