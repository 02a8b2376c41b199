def pair():
    v = []
    def put(x):
        v.append(x)
    def get():
        return list(v)
    return put, get
put, get = pair()
put(1); put(2)
get()
