# Expected: TLE. A busy loop (GNU as, x86-64, AT&T syntax).
        .text
        .globl  _start
_start:
        inc     %rax
        jmp     _start
