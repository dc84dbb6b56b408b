# Expected: AC. Asks every index once, answers the largest.
n = int(input())
values = []
for i in range(1, n + 1):
    print("?", i, flush=True)
    values.append(int(input()))
print("!", max(values), flush=True)
