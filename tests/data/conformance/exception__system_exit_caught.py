def main():
    raise SystemExit(2)
try:
    main()
except SystemExit as e:
    r = ("exit", e.code, isinstance(e, Exception), isinstance(e, BaseException))
r
