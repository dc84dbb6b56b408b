# Expected: WA. Binary search, then answers one more than it found.
n, q = map(int, input().split())
lo, hi = 1, n
while lo < hi:
    mid = (lo + hi) // 2
    print("?", mid, flush=True)
    r = input().strip()
    if r == "=":
        lo = hi = mid
        break
    if r == "<":
        hi = mid - 1
    else:
        lo = mid + 1
print("!", lo + 1, flush=True)
