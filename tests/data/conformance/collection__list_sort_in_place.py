data = [5, 2, 9, 1, 5, 6]
data.sort()
people = [("bob", 25), ("amy", 30), ("cat", 25)]
people.sort(key=lambda p: (p[1], p[0]))
r = data.sort(reverse=True)
(data, people, r)
