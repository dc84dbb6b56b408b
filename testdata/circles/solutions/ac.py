import math
import sys

data = sys.stdin.read().split()
n = int(data[0])
print("\n".join(f"{math.pi * float(r) ** 2:.9f}" for r in data[1:n + 1]))
