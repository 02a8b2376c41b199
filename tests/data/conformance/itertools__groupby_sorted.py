from itertools import groupby
data = sorted(["apple", "avocado", "bean", "beet", "corn"], key=lambda w: w[0])
([(k, list(g)) for k, g in groupby(data, key=lambda w: w[0])], [(k, len(list(g))) for k, g in groupby("aaabccaa")])
