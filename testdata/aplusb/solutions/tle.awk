# Expected: TLE. A loop that never ends.
BEGIN { while (1) x++ }
