from collections import deque
d = deque([1, 2, 3], maxlen=4)
d.append(4)
d.append(5)
d.appendleft(0)
d.rotate(1)
e = deque("abc")
e.extendleft("xy")
(list(d), d.maxlen, d.popleft(), d.pop(), list(e), e.count("a"), deque(range(3))[1])
