r = "main" if __name__ == "__main__" else __name__
r
