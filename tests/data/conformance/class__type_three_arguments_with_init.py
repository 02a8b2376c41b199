def init(self, name):
    self.name = name
Person = type("Person", (object,), {"__init__": init, "greet": lambda self: "hi " + self.name})
Num = type("Num", (int,), {})
try:
    type("X", (), [])
    err = None
except TypeError as e:
    err = str(e)
(Person("ann").greet(), Num(5) + 1, type(Num(5)).__name__, err)
