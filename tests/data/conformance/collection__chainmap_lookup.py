from collections import ChainMap
defaults = {"color": "red", "size": 1}
user = {"size": 3}
cm = ChainMap(user, defaults)
cm["new"] = True
(cm["color"], cm["size"], sorted(cm), user, len(cm))
