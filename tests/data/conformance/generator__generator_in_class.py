class Tree:
    def __init__(self, v, *kids):
        self.v, self.kids = v, kids
    def __iter__(self):
        yield self.v
        for k in self.kids:
            yield from k
t = Tree(1, Tree(2, Tree(3)), Tree(4))
list(t)
