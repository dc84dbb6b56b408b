#!/usr/bin/env python3
"""Writes tests/1..6.in/.out for circles (deterministic)."""
import math, os, random

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(7)

def radius(lo, hi):
    # radii with up to three decimals, as the statement promises
    return rng.randint(round(lo * 1000), round(hi * 1000)) / 1000

tests = [
    [1.0, 2.0, 0.5],
    [0.001, 0.002, 0.01, 0.1],          # tiny areas: absolute error matters
    [10000.0, 9999.999, 1234.567],      # huge areas: relative error matters
    [radius(0.001, 1) for _ in range(100)],
    [radius(0.001, 10000) for _ in range(1000)],
    [radius(1, 100) for _ in range(1000)],
]

os.makedirs(os.path.join(HERE, "tests"), exist_ok=True)
for i, rs in enumerate(tests, 1):
    with open(os.path.join(HERE, "tests", f"{i}.in"), "w") as f:
        f.write(f"{len(rs)}\n" + "\n".join(f"{r:.3f}" for r in rs) + "\n")
    with open(os.path.join(HERE, "tests", f"{i}.out"), "w") as f:
        f.write("".join(f"{math.pi * r * r:.9f}\n" for r in rs))
