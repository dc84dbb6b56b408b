#!/usr/bin/env python3
"""Writes tests/1..10.in/.out for rangesum (deterministic).
 1-4  small : n, q <= 100,  |a_i| <= 1000
 5-8  medium: n, q <= 1000, |a_i| <= 10^9   (sums need 64 bits)
 9-10 large : n = q = 10^5, |a_i| <= 10^9   (O(n) per query is too slow;
              test 10 uses one-digit values to keep the file small)"""
import os, random

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(99)

def make(n, q, amax, long_queries=False):
    a = [rng.randint(-amax, amax) for _ in range(n)]
    qs = []
    for _ in range(q):
        if long_queries:   # nearly whole-array ranges defeat a naive loop
            l, r = rng.randint(1, n // 20 + 1), rng.randint(n - n // 20, n)
        else:
            l, r = sorted((rng.randint(1, n), rng.randint(1, n)))
        qs.append((l, r))
    return a, qs

tests = [make(1, 1, 1000), make(10, 10, 1000), make(100, 100, 1000),
         make(100, 100, 1000),
         make(1000, 1000, 10**9), make(1000, 1000, 10**9),
         make(1000, 1000, 10**9, True), make(1000, 1000, 10**9, True),
         make(10**5, 10**5, 10**9, True), make(10**5, 10**5, 9, True)]

os.makedirs(os.path.join(HERE, "tests"), exist_ok=True)
for i, (a, qs) in enumerate(tests, 1):
    pre = [0]
    for x in a:
        pre.append(pre[-1] + x)
    with open(os.path.join(HERE, "tests", f"{i}.in"), "w") as f:
        f.write(f"{len(a)} {len(qs)}\n{' '.join(map(str, a))}\n")
        f.write("".join(f"{l} {r}\n" for l, r in qs))
    with open(os.path.join(HERE, "tests", f"{i}.out"), "w") as f:
        f.write("".join(f"{pre[r] - pre[l - 1]}\n" for l, r in qs))
