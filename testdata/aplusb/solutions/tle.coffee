# Expected: TLE. A loop that never ends.
x = 0
loop
  x++
