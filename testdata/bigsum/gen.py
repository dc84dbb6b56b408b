#!/usr/bin/env python3
"""Writes tests/1..3.in/.out for bigsum (deterministic). Test 3 has
1,200,000 numbers in [-10^9, 10^9]: about 12.5 MB of input."""
import os, random

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(31337)
LIM = 10**9

tests = [[1, -2, 3, 1000000000, -1000000000],
         [rng.randint(-LIM, LIM) for _ in range(1000)],
         [rng.randint(-LIM, LIM) for _ in range(1_200_000)]]

os.makedirs(os.path.join(HERE, "tests"), exist_ok=True)
for i, a in enumerate(tests, 1):
    with open(os.path.join(HERE, "tests", f"{i}.in"), "w") as f:
        f.write(f"{len(a)}\n")
        # 10 numbers a line keeps lines short for any reader
        for j in range(0, len(a), 10):
            f.write(" ".join(map(str, a[j:j + 10])) + "\n")
    with open(os.path.join(HERE, "tests", f"{i}.out"), "w") as f:
        f.write(f"{sum(a)}\n")
