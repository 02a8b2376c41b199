from functools import reduce
compose = lambda *fs: reduce(lambda f, g: lambda x: g(f(x)), fs)
pipeline = compose(str.strip, str.lower, lambda s: s.replace(" ", "_"))
(pipeline("  Hello World "), list(map(pipeline, [" A B ", "c"])))
