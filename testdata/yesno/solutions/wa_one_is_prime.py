# Expected: WA. Calls 1 prime: letter case is forgiven, wrong answers are not.
def prime(n):
    d = 2
    while d * d <= n:
        if n % d == 0:
            return False
        d += 1
    return True

t = int(input())
for _ in range(t):
    print("Yes" if prime(int(input())) else "No")
