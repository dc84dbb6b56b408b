# Expected: CE (perl -c: a syntax error).
my ($a, $b) = split ' ', <STDIN>;
print $a + $b, "\n"
}
