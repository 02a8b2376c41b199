try:
    result = undefined_helper(3)
except NameError as e:
    result = ("caught", str(e))
result
