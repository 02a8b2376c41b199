def averager():
    total = count = 0
    avg = None
    while True:
        x = yield avg
        total += x
        count += 1
        avg = total / count
a = averager()
next(a)
[a.send(v) for v in (10, 20, 60)]
