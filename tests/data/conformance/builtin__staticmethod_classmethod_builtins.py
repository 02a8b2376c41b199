class K:
    count = 0
    @classmethod
    def make(cls):
        cls.count += 1
        return cls()
    @staticmethod
    def add(a, b):
        return a + b
class L(K):
    pass
L.make()
K.make()
(K.count, L.count, K.add(1, 2), K().add(3, 4), type(L.make()).__name__)
