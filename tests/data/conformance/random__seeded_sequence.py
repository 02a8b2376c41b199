import random
random.seed(42)
a = [random.randint(1, 100) for _ in range(5)]
random.seed(42)
b = [random.randint(1, 100) for _ in range(5)]
rng = random.Random(7)
items = list(range(10))
rng.shuffle(items)
(a == b, len(a), all(1 <= x <= 100 for x in a), sorted(items) == list(range(10)), rng.choice("abc") in "abc", 0 <= random.random() < 1)
