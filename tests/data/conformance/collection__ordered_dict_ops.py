from collections import OrderedDict
od = OrderedDict.fromkeys("abcde")
od.move_to_end("b")
od.move_to_end("e", last=False)
first = od.popitem(last=False)
(list(od), first, list(reversed(od)))
