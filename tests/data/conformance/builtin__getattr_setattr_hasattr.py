class P:
    x = 1
p = P()
setattr(p, "y", 2)
(getattr(p, "x"), getattr(p, "y"), getattr(p, "z", "default"), hasattr(p, "y"), hasattr(p, "z"), p.y)
