# Expected: CE under PyPy 3 (a syntax error).
print(int(input().split()[0]) +
