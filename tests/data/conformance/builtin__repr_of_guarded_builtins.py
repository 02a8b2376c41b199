names = [print, sorted, sum, min, max, any, all, iter, hash, round, divmod, pow, format, repr,
         ascii, getattr, hasattr, setattr, delattr, vars, dir, eval, exec, len, abs]
shown = [repr(f) for f in names]
print(print, sorted)
(shown, f"{max}", f"{any!r}", format(all), sorted.__name__, getattr.__name__)
