<?php
// Expected: CE (php -l: a syntax error).
echo 1 +;
