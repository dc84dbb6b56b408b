#!/usr/bin/env python3
"""Writes tests/1..2.in/.out for ratio (deterministic)."""
import os, random

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(9)
tests = [[(1, 2), (10**12, 1), (1, 10**12), (3, 7)],
         [(rng.randint(1, 10**12), rng.randint(1, 10**12)) for _ in range(100)]]
os.makedirs(os.path.join(HERE, "tests"), exist_ok=True)
for i, pairs in enumerate(tests, 1):
    with open(os.path.join(HERE, "tests", f"{i}.in"), "w") as f:
        f.write(f"{len(pairs)}\n" + "".join(f"{a} {b}\n" for a, b in pairs))
    with open(os.path.join(HERE, "tests", f"{i}.out"), "w") as f:
        f.write("".join(f"{a / b:.17g}\n" for a, b in pairs))
