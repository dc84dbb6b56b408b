#!/usr/bin/env python3
"""Writes tests/1..3.in/.out for yesno (deterministic)."""
import os, random

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(7)

def prime(n):
    if n < 2:
        return False
    d = 2
    while d * d <= n:
        if n % d == 0:
            return False
        d += 1
    return True

tests = [[1, 2, 3, 4, 5, 9, 97], [999999937, 1000000000, 999999929 * 1], [rng.randint(1, 10**6) for _ in range(100)]]
os.makedirs(os.path.join(HERE, "tests"), exist_ok=True)
for i, ns in enumerate(tests, 1):
    with open(os.path.join(HERE, "tests", f"{i}.in"), "w") as f:
        f.write(f"{len(ns)}\n" + "\n".join(map(str, ns)) + "\n")
    with open(os.path.join(HERE, "tests", f"{i}.out"), "w") as f:
        f.write("".join("YES\n" if prime(n) else "NO\n" for n in ns))
