// Expected: TLE. A loop that never ends.
long x = 0
while (true) { x++ }
