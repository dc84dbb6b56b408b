# Expected: RE. Right answer, then a non-zero exit status.
import sys
a, b = map(int, input().split())
print(a + b)
sys.exit(3)
