registry = {}
def register(cls):
    registry[cls.__name__.lower()] = cls
    return cls
@register
class Alpha:
    pass
@register
class Beta:
    pass
(sorted(registry), registry["beta"].__name__)
