# Expected: WA with 50 points. Prints only 1 and n: 2 of the 4 divisors on
# every test, so the checker's quitp(0.5) makes each test worth half.
n = int(input())
print(1, n)
