# Expected: AC. Binary search; print(..., flush=True) after every question.
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
print("!", lo, flush=True)
