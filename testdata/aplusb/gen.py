#!/usr/bin/env python3
"""Writes tests/1..20.in/.out for aplusb. Deterministic: run it again and
the files come out byte for byte the same."""
import os, random

HERE = os.path.dirname(os.path.abspath(__file__))
LIM = 10**18
rng = random.Random(20261121)

cases = [(1, 2), (0, 0), (-5, 3), (LIM, LIM), (-LIM, -LIM), (LIM, -LIM),
         (2**31 - 1, 1), (-(2**31), -1), (4294967295, 4294967297)]
while len(cases) < 20:
    digits = rng.randint(1, 18)
    cases.append((rng.randint(-10**digits, 10**digits),
                  rng.randint(-LIM, LIM)))

os.makedirs(os.path.join(HERE, "tests"), exist_ok=True)
for i, (a, b) in enumerate(cases, 1):
    with open(os.path.join(HERE, "tests", f"{i}.in"), "w") as f:
        f.write(f"{a} {b}\n")
    with open(os.path.join(HERE, "tests", f"{i}.out"), "w") as f:
        f.write(f"{a + b}\n")
