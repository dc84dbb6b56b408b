; Expected: WA. b - a instead of a + b (NASM, x86-64).
section .bss
buf:    resb 4096
out:    resb 32

section .text
global _start

; rsi = cursor, rdi = end; returns rax = the next signed integer, rsi past it
read_int:
        xor     eax, eax
        xor     ecx, ecx                ; ecx = 1 if negative
.skip:  cmp     rsi, rdi
        jae     .done
        movzx   edx, byte [rsi]
        cmp     dl, '-'
        je      .neg
        cmp     dl, '0'
        jae     .digits
        inc     rsi
        jmp     .skip
.neg:   mov     ecx, 1
        inc     rsi
.digits:
        cmp     rsi, rdi
        jae     .done
        movzx   edx, byte [rsi]
        sub     edx, '0'
        cmp     edx, 9
        ja      .done
        imul    rax, rax, 10
        add     rax, rdx
        inc     rsi
        jmp     .digits
.done:  test    ecx, ecx
        jz      .ret
        neg     rax
.ret:   ret

_start:
        xor     r12, r12                ; bytes read so far
.read:  xor     eax, eax                ; read(0, buf + r12, 4096 - r12)
        xor     edi, edi
        lea     rsi, [buf + r12]
        mov     edx, 4096
        sub     rdx, r12
        jz      .parse
        syscall
        test    rax, rax
        jle     .parse
        add     r12, rax
        jmp     .read
.parse: lea     rsi, [buf]
        lea     rdi, [buf + r12]
        call    read_int
        mov     rbx, rax
        call    read_int
        sub     rax, rbx                ; b - a, not a + b
        ; print rax in decimal, from the end of out backwards
        lea     rsi, [out + 31]
        mov     byte [rsi], 10
        mov     r8, rax                 ; keep the sign
        mov     rcx, 10
        test    rax, rax
        jns     .digit
        neg     rax
.digit: xor     edx, edx
        div     rcx
        add     dl, '0'
        dec     rsi
        mov     [rsi], dl
        test    rax, rax
        jnz     .digit
        test    r8, r8
        jns     .write
        dec     rsi
        mov     byte [rsi], '-'
.write: mov     eax, 1                  ; write(1, rsi, out + 32 - rsi)
        mov     edi, 1
        lea     rdx, [out + 32]
        sub     rdx, rsi
        syscall
        mov     eax, 60                 ; exit(0)
        xor     edi, edi
        syscall
