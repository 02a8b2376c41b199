from collections import UserList
from collections.abc import MutableSequence


class Stack(UserList):
    def push(self, x):
        self.append(x)


a = UserList([3, 1, 2])
a.append(5)
a.extend([9, 0])
a.insert(0, 7)
out = [repr(a), len(a), a[0], a[-1], type(a[1:3]).__name__, repr(a[1:3]), 9 in a]
a.sort()
out.append(repr(a))
a.sort(key=lambda x: -x)
out.append((repr(a), a.pop(), a.pop(0), a.index(5), a.count(3)))
a.remove(5)
a.reverse()
out.append(repr(a))
b = a + [100]
c = [200] + a
out.append((type(b).__name__, repr(b), type(c).__name__, repr(c), repr(a * 2), repr(2 * a)))
a += (4,)
a *= 2
out.append(repr(a))
a[0] = -1
del a[1]
out.append((repr(a), a == list(a), a < [0], a >= UserList([-5]), isinstance(a, MutableSequence)))
s = Stack()
s.push(1)
s.push(2)
out.append((repr(s), type(s.copy()).__name__, repr(s.copy()), repr(list(reversed(s)))))
s.clear()
out.append(repr(s))
out
