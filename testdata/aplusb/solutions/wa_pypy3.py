# Expected: WA under PyPy 3: a - b.
a, b = map(int, input().split())
print(a - b)
