; Expected: TLE. A busy loop (NASM, x86-64).
section .text
global _start
_start:
        inc     rax
        jmp     _start
