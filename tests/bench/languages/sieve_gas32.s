# bench_languages: the sieve of Eratosthenes with plain loops (GNU as,
# 32-bit x86, AT&T syntax, no libc). N is at most 20,000,000: the array is
# static.
        .bss
composite: .skip 20000001
buf:    .skip   64
out:    .skip   32

        .text
        .globl  _start
_start:
        mov     $3, %eax                # read(0, buf, 64)
        xor     %ebx, %ebx
        mov     $buf, %ecx
        mov     $64, %edx
        int     $0x80
        mov     $buf, %esi              # n = the decimal number in buf
        xor     %ecx, %ecx
1:      movzbl  (%esi), %edx
        sub     $'0', %edx
        cmp     $9, %edx
        jbe     2f
        inc     %esi
        jmp     1b
2:      movzbl  (%esi), %edx
        sub     $'0', %edx
        cmp     $9, %edx
        ja      3f
        imul    $10, %ecx, %ecx
        add     %edx, %ecx
        inc     %esi
        jmp     2b
3:      xor     %ebp, %ebp              # ebp = count, ecx = n, ebx = i
        mov     $composite, %edi
        mov     $2, %ebx
4:      cmp     %ecx, %ebx
        ja      7f
        cmpb    $0, (%edi,%ebx)
        jne     6f
        inc     %ebp
        mov     %ebx, %eax              # j = i * i, unless it needs 64 bits
        mul     %ebx
        test    %edx, %edx
        jnz     6f
5:      cmp     %ecx, %eax
        ja      6f
        movb    $1, (%edi,%eax)
        add     %ebx, %eax
        jmp     5b
6:      inc     %ebx
        jmp     4b
7:      mov     %ebp, %eax              # the count in decimal
        mov     $out+31, %esi
        movb    $10, (%esi)
        mov     $10, %ecx
8:      xor     %edx, %edx
        div     %ecx
        add     $'0', %dl
        dec     %esi
        mov     %dl, (%esi)
        test    %eax, %eax
        jnz     8b
        mov     $4, %eax
        mov     $1, %ebx
        mov     %esi, %ecx
        mov     $out+32, %edx
        sub     %esi, %edx
        int     $0x80
        mov     $1, %eax
        xor     %ebx, %ebx
        int     $0x80
