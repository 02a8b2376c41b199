(hash(1) == hash(1.0) == hash(True), hash("a") == hash("a"), hash((1, 2)) == hash((1, 2)), hash(0), hash(-1) == hash(-2), hash(None) == hash(None))
