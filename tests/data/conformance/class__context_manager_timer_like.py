class Recorder:
    def __init__(self):
        self.events = []
    def __enter__(self):
        self.events.append("start")
        return self
    def __exit__(self, exc_type, exc, tb):
        self.events.append("stop" if exc_type is None else f"error {exc_type.__name__}")
        return False
r = Recorder()
with r:
    r.events.append("work")
try:
    with r:
        raise KeyError("k")
except KeyError:
    pass
r.events
