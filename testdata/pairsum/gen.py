#!/usr/bin/env python3
"""Writes tests/1..5.in/.out for pairsum (deterministic): .in holds n, .out
one right answer (the validator accepts any)."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
values = [3, 4, 10, 10**12, 10**18]
os.makedirs(os.path.join(HERE, "tests"), exist_ok=True)
for i, n in enumerate(values, 1):
    with open(os.path.join(HERE, "tests", f"{i}.in"), "w") as f:
        f.write(f"{n}\n")
    with open(os.path.join(HERE, "tests", f"{i}.out"), "w") as f:
        f.write(f"1 {n - 1}\n")
