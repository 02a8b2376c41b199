count = 0
def bump(n=1):
    global count
    count += n
    return count
bump(); bump(5)
count
