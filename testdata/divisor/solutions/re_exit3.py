# Expected: RE. Exits with status 3 before printing anything.
import sys
sys.exit(3)
