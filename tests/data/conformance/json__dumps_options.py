import json
data = {"b": [1, 2.5, None, True], "a": {"x": "é"}}
(json.dumps(data), json.dumps(data, sort_keys=True), json.dumps(data, indent=2, sort_keys=True), json.dumps(data, ensure_ascii=False), json.dumps([1, 2], separators=(",", ":")), json.dumps("tab\t"))
