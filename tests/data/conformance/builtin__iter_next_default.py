it = iter([1, 2])
(next(it), next(it), next(it, "done"), next(iter(()), None))
