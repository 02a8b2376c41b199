print(str(min), str(sorted))
(str(max), str(abs))
