# Expected: WA. Six decimals print 1/10^12 as 0.000000: within an absolute
# 1e-6, but a relative error of 1 against the relative-only tolerance.
t = int(input())
for _ in range(t):
    a, b = map(int, input().split())
    print(f"{a / b:.6f}")
