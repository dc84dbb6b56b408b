# Expected: TLE. Busy loop.
x = 0
loop { x += 1 }
