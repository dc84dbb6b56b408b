#!/usr/bin/env python3
"""Writes tests/1..4.in/.out for divisors (deterministic): each n has exactly
4 divisors (p*q or p^3); .out lists them."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ns = [6, 8, 35, 4087]   # 2*3, 2^3, 5*7, 61*67
os.makedirs(os.path.join(HERE, "tests"), exist_ok=True)
for i, n in enumerate(ns, 1):
    divs = [d for d in range(1, n + 1) if n % d == 0]
    assert len(divs) == 4, (n, divs)
    with open(os.path.join(HERE, "tests", f"{i}.in"), "w") as f:
        f.write(f"{n}\n")
    with open(os.path.join(HERE, "tests", f"{i}.out"), "w") as f:
        f.write(" ".join(map(str, divs)) + "\n")
