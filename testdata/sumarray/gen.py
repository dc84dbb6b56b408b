#!/usr/bin/env python3
"""Writes tests/1..4.in/.out for sumarray (deterministic). Sums pass 2^31 from
test 3 on."""
import os, random

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(3)
arrays = [[5], [1, 2, 3], [10**9] * 5, [rng.randint(0, 10**9) for _ in range(10**5)]]
os.makedirs(os.path.join(HERE, "tests"), exist_ok=True)
for i, a in enumerate(arrays, 1):
    with open(os.path.join(HERE, "tests", f"{i}.in"), "w") as f:
        f.write(f"{len(a)}\n" + " ".join(map(str, a)) + "\n")
    with open(os.path.join(HERE, "tests", f"{i}.out"), "w") as f:
        f.write(f"{sum(a)}\n")
