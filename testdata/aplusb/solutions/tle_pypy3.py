# Expected: TLE under PyPy 3: the JIT makes the loop fast, not endless.
x = 0
while True:
    x += 1
