from string import Template
t = Template("$who likes ${what}!")
(t.substitute(who="Tim", what="pie"), t.safe_substitute(who="Ann"), Template("$$5").substitute())
