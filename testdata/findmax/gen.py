#!/usr/bin/env python3
"""Writes tests/1..5.in/.out for findmax (deterministic): .in holds n and the
array, .out its maximum."""
import os, random

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(5)
arrays = [[7], [-3, -1, -2], [5, 5, 5, 5], [rng.randint(-10**9, 10**9) for _ in range(100)],
          [rng.randint(-10**9, 10**9) for _ in range(1000)]]
os.makedirs(os.path.join(HERE, "tests"), exist_ok=True)
for i, a in enumerate(arrays, 1):
    with open(os.path.join(HERE, "tests", f"{i}.in"), "w") as f:
        f.write(f"{len(a)}\n" + " ".join(map(str, a)) + "\n")
    with open(os.path.join(HERE, "tests", f"{i}.out"), "w") as f:
        f.write(f"{max(a)}\n")
