# Expected: AC. A+B in GNU as (Intel syntax), x86-64 Linux, no libc: system
# calls made directly (read 0, write 1, exit 60); 64-bit signed numbers.
        .intel_syntax noprefix
        .bss
buf:    .skip   4096
out:    .skip   32

        .text
        .globl  _start

# rsi = cursor, rdi = end; returns rax = the next signed integer, rsi past it
read_int:
        xor     eax, eax
        xor     ecx, ecx                # ecx = 1 if negative
1:      cmp     rsi, rdi
        jae     4f
        movzx   edx, byte ptr [rsi]
        cmp     dl, '-'
        je      2f
        cmp     dl, '0'
        jae     3f
        inc     rsi
        jmp     1b
2:      mov     ecx, 1
        inc     rsi
3:      cmp     rsi, rdi
        jae     4f
        movzx   edx, byte ptr [rsi]
        sub     edx, '0'
        cmp     edx, 9
        ja      4f
        imul    rax, rax, 10
        add     rax, rdx
        inc     rsi
        jmp     3b
4:      test    ecx, ecx
        jz      5f
        neg     rax
5:      ret

_start:
        xor     r12, r12                # bytes read so far
1:      xor     eax, eax                # read(0, buf + r12, 4096 - r12)
        xor     edi, edi
        lea     rsi, [buf + r12]
        mov     edx, 4096
        sub     rdx, r12
        jz      2f
        syscall
        test    rax, rax
        jle     2f
        add     r12, rax
        jmp     1b
2:      lea     rsi, [buf]
        lea     rdi, [buf + r12]
        call    read_int
        mov     rbx, rax
        call    read_int
        add     rax, rbx                # a + b
        lea     rsi, [out + 31]         # digits from the end of out backwards
        mov     byte ptr [rsi], 10
        mov     r8, rax                 # keep the sign
        mov     rcx, 10
        test    rax, rax
        jns     3f
        neg     rax
3:      xor     edx, edx
        div     rcx
        add     dl, '0'
        dec     rsi
        mov     [rsi], dl
        test    rax, rax
        jnz     3b
        test    r8, r8
        jns     4f
        dec     rsi
        mov     byte ptr [rsi], '-'
4:      mov     eax, 1                  # write(1, rsi, out + 32 - rsi)
        mov     edi, 1
        lea     rdx, [out + 32]
        sub     rdx, rsi
        syscall
        mov     eax, 60                 # exit(0)
        xor     edi, edi
        syscall
