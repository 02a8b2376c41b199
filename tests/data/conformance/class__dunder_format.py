class Money:
    def __init__(self, cents):
        self.cents = cents
    def __format__(self, spec):
        if spec == "short":
            return f"${self.cents // 100}"
        return f"${self.cents / 100:{spec or '.2f'}}"
m = Money(12345)
(f"{m}", f"{m:short}", f"{m:>12.1f}", format(m, "short"), "{:short}|{}".format(m, m), f"{[m][0]:short}")
