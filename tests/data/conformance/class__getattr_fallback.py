class Config:
    def __init__(self, **values):
        self.values = values
    def __getattr__(self, name):
        try:
            return self.values[name]
        except KeyError:
            raise AttributeError(name) from None
c = Config(debug=True)
(c.debug, getattr(c, "missing", "default"), hasattr(c, "other"))
