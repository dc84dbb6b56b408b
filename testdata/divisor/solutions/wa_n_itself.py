# Expected: WA. n divides n, but the divisor must be below n.
t = int(input())
for _ in range(t):
    print(int(input()))
