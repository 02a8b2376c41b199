from functools import total_ordering
@total_ordering
class Money:
    def __init__(self, cents):
        self.cents = cents
    def __eq__(self, o):
        return self.cents == o.cents
    def __lt__(self, o):
        return self.cents < o.cents
a, b = Money(5), Money(7)
(a < b, a <= b, a > b, a >= b, b >= a, max(a, b).cents)
