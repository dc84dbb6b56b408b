<?php
// bench_languages: the sieve of Eratosthenes with plain loops.
$n = (int) trim(fgets(STDIN));
$composite = array_fill(0, $n + 1, false);
$count = 0;
for ($i = 2; $i <= $n; $i++)
    if (!$composite[$i]) {
        $count++;
        for ($j = $i * $i; $j <= $n; $j += $i)
            $composite[$j] = true;
    }
echo $count, "\n";
