values = iter([1, 2, 3, 0, 4])
it = iter(lambda: next(values), 0)
(type(it).__name__, list(it), type(iter([])).__name__ != "callable_iterator")
