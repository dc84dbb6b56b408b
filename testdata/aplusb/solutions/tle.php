<?php
// Expected: TLE. Busy loop.
$x = 0;
while (true) { $x++; }
