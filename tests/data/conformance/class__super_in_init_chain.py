class Base:
    def __init__(self, **kw):
        self.log = ["Base"]
class Left(Base):
    def __init__(self, **kw):
        super().__init__(**kw)
        self.log.append("Left")
class Right(Base):
    def __init__(self, **kw):
        super().__init__(**kw)
        self.log.append("Right")
class Both(Left, Right):
    def __init__(self):
        super().__init__()
        self.log.append("Both")
Both().log
