def todo():
    pass
def later():
    ...
class Empty:
    pass
(todo(), later(), type(Empty()).__name__, ..., Ellipsis is ...)
