try:
    list(zip([1, 2], [1], strict=True))
except ValueError as e:
    msg = str(e)
(list(zip([1], [2], strict=True)), msg)
