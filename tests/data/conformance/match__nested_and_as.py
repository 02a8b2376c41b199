def m(cmd):
    match cmd.split():
        case ["go", ("north" | "south") as d]:
            return f"going {d}"
        case ["take", item, *more] if more:
            return f"take {item} and {len(more)} more"
        case ["take", item]:
            return f"take {item}"
        case [("quit" | "exit")]:
            return "bye"
        case _:
            return "unknown"
[m(c) for c in ("go north", "go west", "take key", "take a b c", "quit", "")]
