# Expected: AC. Prints "yes"/"no": the checker ignores letter case.
def prime(n):
    if n < 2:
        return False
    d = 2
    while d * d <= n:
        if n % d == 0:
            return False
        d += 1
    return True

t = int(input())
for _ in range(t):
    print("yes" if prime(int(input())) else "no")
