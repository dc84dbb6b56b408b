; bench_languages: the sieve of Eratosthenes with plain loops (NASM, 32-bit
; x86, no libc). N is at most 20,000,000: the array is static.
section .bss
composite: resb 20000001
buf:    resb 64
out:    resb 32

section .text
global _start
_start:
        mov     eax, 3                  ; read(0, buf, 64)
        xor     ebx, ebx
        mov     ecx, buf
        mov     edx, 64
        int     0x80
        mov     esi, buf                ; n = the decimal number in buf
        xor     ecx, ecx
.skip:  movzx   edx, byte [esi]
        sub     edx, '0'
        cmp     edx, 9
        jbe     .num
        inc     esi
        jmp     .skip
.num:   movzx   edx, byte [esi]
        sub     edx, '0'
        cmp     edx, 9
        ja      .sieve
        imul    ecx, ecx, 10
        add     ecx, edx
        inc     esi
        jmp     .num
.sieve: xor     ebp, ebp                ; ebp = count, ecx = n, ebx = i
        mov     edi, composite
        mov     ebx, 2
.outer: cmp     ebx, ecx
        ja      .print
        cmp     byte [edi + ebx], 0
        jne     .next
        inc     ebp
        mov     eax, ebx                ; j = i * i, unless it needs 64 bits
        mul     ebx
        test    edx, edx
        jnz     .next
.inner: cmp     eax, ecx
        ja      .next
        mov     byte [edi + eax], 1
        add     eax, ebx
        jmp     .inner
.next:  inc     ebx
        jmp     .outer
.print: mov     eax, ebp                ; the count in decimal
        mov     esi, out + 31
        mov     byte [esi], 10
        mov     ecx, 10
.digit: xor     edx, edx
        div     ecx
        add     dl, '0'
        dec     esi
        mov     [esi], dl
        test    eax, eax
        jnz     .digit
        mov     eax, 4
        mov     ebx, 1
        mov     ecx, esi
        mov     edx, out + 32
        sub     edx, esi
        int     0x80
        mov     eax, 1
        xor     ebx, ebx
        int     0x80
