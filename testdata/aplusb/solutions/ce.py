# Expected: CE. A syntax error is caught by the compile (syntax-check) step.
a, b = map(int, input().split()
print(a + b)
