# Expected: TLE. A loop that never ends.
x <- 0
repeat x <- x + 1
