# Expected: TLE. A loop that never ends.
set x 0
while {1} { incr x }
