class Deck:
    def __init__(self):
        self.cards = [f"{r}{s}" for s in "SH" for r in "A23"]
    def __len__(self):
        return len(self.cards)
    def __getitem__(self, i):
        return self.cards[i]
    def __reversed__(self):
        return iter(self.cards[::-1])
d = Deck()
(len(d), d[0], d[-1], list(reversed(d))[:2], d[1:3], "2H" in d)
