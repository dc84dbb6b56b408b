# Expected: WA. pi = 3.14 is off by 0.05%, far beyond 1e-6 absolute or relative.
n = int(input())
for _ in range(n):
    r = float(input())
    print(f"{3.14 * r * r:.9f}")
