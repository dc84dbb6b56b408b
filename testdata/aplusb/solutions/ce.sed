# a syntax error: an s command that never ends
s/ /+
