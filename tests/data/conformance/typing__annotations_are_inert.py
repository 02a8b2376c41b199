from typing import Optional, Union, List, Dict, Callable
def f(xs: List[int], key: Optional[Callable[[int], int]] = None) -> Dict[str, Union[int, float]]:
    key = key or (lambda v: v)
    return {"max": max(map(key, xs)), "mean": sum(xs) / len(xs)}
f([1, 2, 3], key=lambda v: -v)
