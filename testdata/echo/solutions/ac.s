# Expected: AC. The first line of the input (GNU as, x86-64, AT&T syntax,
# no libc).
        .bss
buf:    .skip   65536
        .text
        .globl  _start
_start:
        xor     %r12, %r12              # bytes read so far
1:      xor     %eax, %eax              # read(0, buf + r12, 65536 - r12)
        xor     %edi, %edi
        lea     buf(%rip), %rsi
        add     %r12, %rsi
        mov     $65536, %edx
        sub     %r12, %rdx
        jz      2f
        syscall
        test    %rax, %rax
        jle     2f
        add     %rax, %r12
        jmp     1b
2:      xor     %edx, %edx              # rdx = length up to the first newline
        lea     buf(%rip), %rsi
3:      cmp     %r12, %rdx
        jae     4f
        inc     %rdx
        cmpb    $10, -1(%rsi,%rdx)
        jne     3b
4:      mov     $1, %eax
        mov     $1, %edi
        syscall
        mov     $60, %eax
        xor     %edi, %edi
        syscall
