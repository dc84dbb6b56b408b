# Expected: AC under PyPy 3 (the note names the language: .py is python3's).
a, b = map(int, input().split())
print(a + b)
