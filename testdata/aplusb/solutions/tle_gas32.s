# Expected: TLE. A busy loop (GNU as, 32-bit x86, AT&T syntax).
        .text
        .globl  _start
_start:
        inc     %eax
        jmp     _start
