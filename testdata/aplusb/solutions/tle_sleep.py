# Expected: TLE (wall clock). Sleeps without using CPU, so only the
# wall-time limit can stop it.
import time
time.sleep(30)
