# Expected: TLE. A loop that never ends.
x=0
while :; do x=$((x + 1)); done
