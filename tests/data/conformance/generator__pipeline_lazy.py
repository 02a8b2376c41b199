log = []
def numbers():
    for i in range(10):
        log.append(i)
        yield i
evens = (n for n in numbers() if n % 2 == 0)
squares = (n * n for n in evens)
first_two = [next(squares), next(squares)]
(first_two, log)
