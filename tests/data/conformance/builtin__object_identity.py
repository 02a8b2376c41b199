o1 = object()
o2 = object()
(o1 == o1, o1 == o2, o1 is not o2, type(o1).__name__, isinstance(o1, object), isinstance(3, object))
