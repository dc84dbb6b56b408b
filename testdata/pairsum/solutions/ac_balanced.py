# the most balanced pair: a different right answer from the jury's
n = int(input())
a = (n - 1) // 2
print(a, n - a)
