from itertools import accumulate, chain
import operator
(list(accumulate([1, 2, 3, 4])), list(accumulate([3, 1, 4], max)), list(accumulate([1, 2, 3], operator.mul, initial=10)), list(chain("ab", [1])), list(chain.from_iterable([[1, 2], [3]])))
