#!/usr/bin/env python3
"""Writes tests/1..8.in/.out for guess (deterministic): .in holds n and the
question limit q = ceil(log2 n) + 1, .out the secret."""
import os, random

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(11)
cases = [(1, 1), (2, 2), (10, 7), (1000, 1), (1000, 1000), (10**9, 1), (10**9, 10**9)]
cases.append((10**9, rng.randint(1, 10**9)))
os.makedirs(os.path.join(HERE, "tests"), exist_ok=True)
for i, (n, x) in enumerate(cases, 1):
    q = (n - 1).bit_length() + 1
    with open(os.path.join(HERE, "tests", f"{i}.in"), "w") as f:
        f.write(f"{n} {q}\n")
    with open(os.path.join(HERE, "tests", f"{i}.out"), "w") as f:
        f.write(f"{x}\n")
