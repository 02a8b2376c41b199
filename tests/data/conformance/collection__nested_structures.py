inventory = {"fruit": {"apple": 3, "pear": 0}, "veg": {"kale": 2}}
total = sum(n for group in inventory.values() for n in group.values())
missing = [name for group in inventory.values() for name, n in group.items() if n == 0]
inventory["fruit"]["fig"] = 7
(total, missing, sorted(inventory["fruit"]), max(inventory, key=lambda k: len(inventory[k])))
