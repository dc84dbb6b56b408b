# Expected: CE. The program never defines _start's helper: ld cannot
# resolve `solve` (GNU as, x86-64).
        .text
        .globl  _start
_start:
        call    solve
        mov     $60, %eax
        xor     %edi, %edi
        syscall
