; Expected: CE. rax does not exist in 32-bit code (NASM, 32-bit x86).
section .text
global _start
_start:
        mov     rax, 1
        int     0x80
