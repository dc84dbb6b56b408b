; Expected: TLE. A busy loop (NASM, 32-bit x86).
section .text
global _start
_start:
        inc     eax
        jmp     _start
