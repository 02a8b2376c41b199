import string
(string.ascii_lowercase[:5], string.ascii_uppercase[-3:], string.digits, string.punctuation[:5], string.capwords("hello big world"), len(string.printable), string.hexdigits)
