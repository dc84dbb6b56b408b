; bench_languages: the sieve of Eratosthenes with plain loops (NASM,
; x86-64, no libc). N is at most 20,000,000: the array is static.
section .bss
composite: resb 20000001
buf:    resb 64
out:    resb 32

section .text
global _start
_start:
        xor     eax, eax                ; read(0, buf, 64)
        xor     edi, edi
        lea     rsi, [buf]
        mov     edx, 64
        syscall
        lea     rsi, [buf]              ; n = the decimal number in buf
        xor     ecx, ecx
.skip:  movzx   edx, byte [rsi]
        sub     edx, '0'
        cmp     edx, 9
        jbe     .num
        inc     rsi
        jmp     .skip
.num:   movzx   edx, byte [rsi]
        sub     edx, '0'
        cmp     edx, 9
        ja      .sieve
        imul    rcx, rcx, 10
        add     rcx, rdx
        inc     rsi
        jmp     .num
.sieve: xor     r8, r8                  ; r8 = count, rcx = n, rbx = i
        lea     rdi, [composite]
        mov     rbx, 2
.outer: cmp     rbx, rcx
        ja      .print
        cmp     byte [rdi + rbx], 0
        jne     .next
        inc     r8
        mov     rax, rbx                ; j = i * i
        imul    rax, rbx
.inner: cmp     rax, rcx
        ja      .next
        mov     byte [rdi + rax], 1
        add     rax, rbx
        jmp     .inner
.next:  inc     rbx
        jmp     .outer
.print: mov     rax, r8                 ; the count in decimal
        lea     rsi, [out + 31]
        mov     byte [rsi], 10
        mov     ecx, 10
.digit: xor     edx, edx
        div     rcx
        add     dl, '0'
        dec     rsi
        mov     [rsi], dl
        test    rax, rax
        jnz     .digit
        mov     eax, 1
        mov     edi, 1
        lea     rdx, [out + 32]
        sub     rdx, rsi
        syscall
        mov     eax, 60
        xor     edi, edi
        syscall
