x = 1
y = x + missing_variable
