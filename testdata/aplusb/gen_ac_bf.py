#!/usr/bin/env python3
"""Writes solutions/ac.bf's program (after its comment lines): A+B in
Brainfuck for sums of signed 64-bit numbers, in fixed cells, unrolled. Each
number is read into a register of 21 decimal digits (least significant
first), a negative one turned into its tens complement; the registers are
added digit by digit with carries; a result whose top digit is 5 or more is
negative: '-' and its complement are printed, without leading zeros.
Output on stdout: python3 gen_ac_bf.py > body.bf. Cells wrap at 8 bits
(beef); the program reads a line "A B\n" as tests/*.in hold it."""
import sys
N = 21                      # digits per register (10's complement)
A = list(range(0, N))
S = list(range(N, N + 8))   # scratch: c t1 t2 f negA negB g started
c, t1, t2, f, negA, negB, g, started = S
B = list(range(N + 8, N + 8 + N))
out = []
p = 0
def go(x):
    global p
    out.append('>' * (x - p) if x > p else '<' * (p - x)); p = x
def add(x, k):
    go(x); out.append('+' * k if k > 0 else '-' * (-k))
def clear(x):
    go(x); out.append('[-]')
def move(src, dsts):
    go(src); out.append('[-')
    for d, s in dsts:
        add(d, s)
    go(src); out.append(']')
def copy(src, dst):
    clear(dst); clear(t2)
    move(src, [(dst, 1), (t2, 1)]); move(t2, [(src, 1)])
def if_nz(cond, body):
    go(cond); out.append('[')
    body()
    clear(cond); out.append(']')
def if_eq(x, v, body):
    copy(x, t1); add(t1, -v)
    clear(f); add(f, 1)
    if_nz(t1, lambda: clear(f))
    if_nz(f, body)
def read(x):
    go(x); out.append(',')
def read_number(R, neg, term):
    clear(c); read(c)
    if_eq(c, 45, lambda: (add(neg, 1), read(c)))
    add(c, -term)
    go(c); out.append('[')
    add(c, -(48 - term))
    for k in range(N - 1, 0, -1):
        clear(R[k]); move(R[k - 1], [(R[k], 1)])
    move(c, [(R[0], 1)])
    read(c); add(c, -term)
    go(c); out.append(']')
def carry_tens(R):
    for k in range(N):
        def fix(k=k):
            add(R[k], -10)
            if k + 1 < N:
                add(R[k + 1], 1)
        if_eq(R[k], 10, fix)
def negate(R):
    for k in range(N):
        clear(t1); add(t1, 9); move(R[k], [(t1, -1)]); move(t1, [(R[k], 1)])
    add(R[0], 1)
    carry_tens(R)
def main():
    read_number(A, negA, 32)
    read_number(B, negB, 10)
    if_nz(negA, lambda: negate(A))
    if_nz(negB, lambda: negate(B))
    for k in range(N):
        move(B[k], [(A[k], 1)])
        clear(g)
        for v in range(10, 20):
            if_eq(A[k], v, lambda: add(g, 1))
        def fix(k=k):
            add(A[k], -10)
            if k + 1 < N:
                add(A[k + 1], 1)
        if_nz(g, fix)
    clear(g)
    for v in range(5, 10):
        if_eq(A[N - 1], v, lambda: add(g, 1))
    def minus():
        clear(t1); add(t1, 45); go(t1); out.append('.'); clear(t1)
        negate(A)
    if_nz(g, minus)
    clear(started)
    for k in range(N - 1, 0, -1):
        copy(A[k], t1)
        if_nz(t1, lambda: (clear(started), add(started, 1)))
        copy(started, t1)
        def pr(k=k):
            add(A[k], 48); go(A[k]); out.append('.'); add(A[k], -48)
        if_nz(t1, pr)
    add(A[0], 48); go(A[0]); out.append('.')
    clear(t1); add(t1, 10); go(t1); out.append('.')
main()
code = ''.join(out)
sys.stdout.write(code)
