Expected: TLE: a loop that never ends
+[]
