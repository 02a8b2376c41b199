s = "tab\there\nnl \\ \x41 \u00e9 \N{GREEK SMALL LETTER ALPHA}"
r = r"raw\n\d"
(s, len(s), r, len(r), "\'" == "'", '\"', "\101", "\0" == chr(0))
