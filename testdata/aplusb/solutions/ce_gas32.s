# Expected: CE. %rax does not exist in 32-bit code (GNU as, 32-bit x86).
        .text
        .globl  _start
_start:
        mov     $1, %rax
        int     $0x80
