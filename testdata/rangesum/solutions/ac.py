import sys
from itertools import accumulate

data = sys.stdin.buffer.read().split()
n, q = int(data[0]), int(data[1])
pre = [0]
pre.extend(accumulate(map(int, data[2:2 + n])))
it = iter(map(int, data[2 + n:2 + n + 2 * q]))
sys.stdout.write("".join(f"{pre[r] - pre[l - 1]}\n" for l, r in zip(it, it)))
