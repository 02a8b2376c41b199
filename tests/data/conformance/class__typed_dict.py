from typing import TypedDict
class Movie(TypedDict):
    title: str
    year: int
class Partial(TypedDict, total=False):
    rating: float
m = Movie(title="Up", year=2009)
m["year"] += 1
p = Partial()
p["rating"] = 8.5
(m, type(m).__name__, isinstance(m, dict), p, Movie(title="x", year=1) == {"title": "x", "year": 1})
