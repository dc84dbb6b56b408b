# bench_languages: the sieve of Eratosthenes with plain loops (GNU as,
# x86-64, AT&T syntax, no libc). N is at most 20,000,000: the array is static.
        .bss
composite: .skip 20000001
buf:    .skip   64
out:    .skip   32

        .text
        .globl  _start
_start:
        xor     %eax, %eax              # read(0, buf, 64)
        xor     %edi, %edi
        lea     buf(%rip), %rsi
        mov     $64, %edx
        syscall
        lea     buf(%rip), %rsi         # n = the decimal number in buf
        xor     %ecx, %ecx
1:      movzbl  (%rsi), %edx
        sub     $'0', %edx
        cmp     $9, %edx
        jbe     2f
        inc     %rsi
        jmp     1b
2:      movzbl  (%rsi), %edx
        sub     $'0', %edx
        cmp     $9, %edx
        ja      3f
        imul    $10, %rcx, %rcx
        add     %rdx, %rcx
        inc     %rsi
        jmp     2b
3:      xor     %r8, %r8                # r8 = count, rcx = n, rbx = i
        lea     composite(%rip), %rdi
        mov     $2, %rbx
4:      cmp     %rcx, %rbx
        ja      7f
        cmpb    $0, (%rdi,%rbx)
        jne     6f
        inc     %r8
        mov     %rbx, %rax              # j = i * i
        imul    %rbx, %rax
5:      cmp     %rcx, %rax
        ja      6f
        movb    $1, (%rdi,%rax)
        add     %rbx, %rax
        jmp     5b
6:      inc     %rbx
        jmp     4b
7:      mov     %r8, %rax               # the count in decimal
        lea     out+31(%rip), %rsi
        movb    $10, (%rsi)
        mov     $10, %ecx
8:      xor     %edx, %edx
        div     %rcx
        add     $'0', %dl
        dec     %rsi
        mov     %dl, (%rsi)
        test    %rax, %rax
        jnz     8b
        mov     $1, %eax
        mov     $1, %edi
        lea     out+32(%rip), %rdx
        sub     %rsi, %rdx
        syscall
        mov     $60, %eax
        xor     %edi, %edi
        syscall
