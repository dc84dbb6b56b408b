\ Expected: CE (an undefined word in a definition).
: main read-two-numbers + . cr ;
