late = []
early = []
for i in range(3):
    late.append(lambda: i)
    early.append(lambda i=i: i)
([f() for f in late], [f() for f in early])
