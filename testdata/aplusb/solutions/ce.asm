; Expected: CE. `mvo` is no instruction (NASM, x86-64).
section .text
global _start
_start:
        mvo     eax, 60
        syscall
