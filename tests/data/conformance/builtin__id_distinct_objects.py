a = [1]
b = [1]
(id(a) == id(a), id(a) != id(b), isinstance(id(a), int))
