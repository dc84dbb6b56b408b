<?php
// Expected: WA: a - b.
[$a, $b] = array_map('intval', preg_split('/\s+/', trim(fgets(STDIN))));
echo $a - $b, "\n";
