class Account:
    def __init__(self, balance):
        self.balance = balance
    @property
    def balance(self):
        return self._balance
    @balance.setter
    def balance(self, v):
        if v < 0:
            raise ValueError("negative balance")
        self._balance = v
    @balance.deleter
    def balance(self):
        self._balance = 0
a = Account(10)
a.balance += 5
try:
    a.balance = -1
except ValueError as e:
    err = str(e)
del a.balance
(a.balance, err)
