# Expected: AC. Prints the LARGEST proper divisor, unlike the jury's answer:
# only a custom checker can accept it.
import sys

data = sys.stdin.read().split()
out = []
for s in data[1:int(data[0]) + 1]:
    n = int(s)
    d = 2
    while d * d <= n and n % d:
        d += 1
    out.append(str(n // d) if d * d <= n else "-1")
print("\n".join(out))
