class Seq:
    def __len__(self):
        return 3
    def __getitem__(self, i):
        if i >= 3:
            raise IndexError(i)
        return i * 10
(list(reversed([1, 2, 3])), "".join(reversed("abc")), list(reversed(range(4))), list(reversed(Seq())), list(reversed({"a": 1, "b": 2})))
