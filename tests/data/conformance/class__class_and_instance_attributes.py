class Counter:
    created = 0
    shared = []
    def __init__(self):
        Counter.created += 1
        self.own = []
a, b = Counter(), Counter()
a.shared.append(1)
a.own.append(2)
a.created = 100
(Counter.created, b.created, a.created, b.shared, b.own, "created" in vars(a))
