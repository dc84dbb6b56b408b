# bench_languages: the sieve of Eratosthenes with plain loops.
my $n = int(<STDIN>);
my $composite = "\0" x ($n + 1);
my $count = 0;
for (my $i = 2; $i <= $n; $i++) {
    next if vec($composite, $i, 8);
    $count++;
    for (my $j = $i * $i; $j <= $n; $j += $i) {
        vec($composite, $j, 8) = 1;
    }
}
print "$count\n";
