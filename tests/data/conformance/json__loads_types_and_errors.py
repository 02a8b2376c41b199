import json
v = json.loads('{"n": 1, "f": 1.5, "s": "x", "l": [true, false, null], "o": {}}')
try:
    json.loads("{bad json}")
except json.JSONDecodeError as e:
    err = (type(e).__name__, e.msg, e.lineno, e.colno)
(v, err, json.loads("[]"), json.loads('"\\u00e9"'))
