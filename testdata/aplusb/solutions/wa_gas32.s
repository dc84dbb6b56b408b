# Expected: WA. The sum of the low 32 bits only (GNU as, 32-bit x86): no carry.
        .intel_syntax noprefix
        .bss
buf:    .skip   4096
out:    .skip   32
tmp:    .skip   8
a:      .skip   8

        .text
        .globl  _start

# esi = cursor, edi = end; returns edx:eax = the next signed integer
read_int:
        xor     eax, eax
        xor     edx, edx
        xor     ecx, ecx                # ecx = 1 if negative
.Lskip:  cmp     esi, edi
        jae     .Ldone
        movzx   ebx, byte ptr [esi]
        cmp     bl, '-'
        je      .Lneg
        cmp     bl, '0'
        jae     .Ldigits
        inc     esi
        jmp     .Lskip
.Lneg:   mov     ecx, 1
        inc     esi
.Ldigits:
        cmp     esi, edi
        jae     .Ldone
        movzx   ebx, byte ptr [esi]
        sub     ebx, '0'
        cmp     ebx, 9
        ja      .Ldone
        shld    edx, eax, 1             # edx:eax *= 10, as x*2 + x*8
        shl     eax, 1
        mov     [tmp], eax
        mov     [tmp + 4], edx
        shld    edx, eax, 2
        shl     eax, 2
        add     eax, [tmp]
        adc     edx, [tmp + 4]
        add     eax, ebx
        adc     edx, 0
        inc     esi
        jmp     .Ldigits
.Ldone:  test    ecx, ecx
        jz      .Lret
        neg     eax                     # 64-bit negation
        adc     edx, 0
        neg     edx
.Lret:   ret

_start:
        xor     ebp, ebp                # bytes read so far
.Lread:  mov     eax, 3                  # read(0, buf + ebp, 4096 - ebp)
        xor     ebx, ebx
        lea     ecx, [buf + ebp]
        mov     edx, 4096
        sub     edx, ebp
        jz      .Lparse
        int     0x80
        test    eax, eax
        jle     .Lparse
        add     ebp, eax
        jmp     .Lread
.Lparse: lea     esi, [buf]
        lea     edi, [buf + ebp]
        call    read_int
        mov     [a], eax
        mov     [a + 4], edx
        call    read_int
        add     eax, [a]                # a + b
        mov     edx, 0                  # the high half dropped
        mov     ebp, edx                # keep the sign
        test    edx, edx
        jns     .Lprint
        neg     eax
        adc     edx, 0
        neg     edx
.Lprint: lea     edi, [out + 31]         # digits from the end of out backwards
        mov     byte ptr [edi], 10
        mov     ecx, 10
.Ldigit: mov     ebx, eax                # edx:eax /= 10, the high half first
        mov     eax, edx
        xor     edx, edx
        div     ecx
        mov     esi, eax                # quotient's high half
        mov     eax, ebx
        div     ecx                     # edx = remainder of the high half
        add     dl, '0'
        dec     edi
        mov     [edi], dl
        mov     edx, esi
        mov     ebx, eax
        or      ebx, edx
        jnz     .Ldigit
        test    ebp, ebp
        jns     .Lwrite
        dec     edi
        mov     byte ptr [edi], '-'
.Lwrite: mov     eax, 4                  # write(1, edi, out + 32 - edi)
        mov     ebx, 1
        mov     ecx, edi
        lea     edx, [out + 32]
        sub     edx, edi
        int     0x80
        mov     eax, 1                  # exit(0)
        xor     ebx, ebx
        int     0x80
