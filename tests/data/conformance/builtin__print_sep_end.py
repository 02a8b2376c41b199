print("a", "b", sep="-", end="!\n")
print(1, 2, 3)
print()
print("x", end="")
print("y")
print(*[1, 2], sep="")
print("tab\tsep", [1, "s"], {"k": (1,)})
"done"
