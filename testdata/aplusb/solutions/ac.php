<?php
// Expected: AC.
[$a, $b] = array_map('intval', preg_split('/\s+/', trim(fgets(STDIN))));
echo $a + $b, "\n";
