import math as m
from math import sqrt as root, pi
from itertools import chain as ch, repeat
import json, string as st
(m.floor(2.5), root(16), round(pi, 3), list(ch([1], [2])), list(repeat(0, 2)), json.dumps([1]), st.digits[:3])
