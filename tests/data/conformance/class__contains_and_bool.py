class Bag:
    def __init__(self, *items):
        self.items = list(items)
    def __contains__(self, x):
        return x in self.items
    def __bool__(self):
        return bool(self.items)
    def __len__(self):
        return 99
(3 in Bag(1, 3), 4 not in Bag(1), bool(Bag()), bool(Bag(0)), "yes" if Bag() else "no")
