# Expected: WA: a - b.
my ($a, $b) = split ' ', <STDIN>;
print $a - $b, "\n";
