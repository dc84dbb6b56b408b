; Expected: AC. The first line of the input (NASM, x86-64, no libc).
section .bss
buf:    resb 65536
section .text
global _start
_start:
        xor     r12, r12                ; bytes read so far
.read:  xor     eax, eax                ; read(0, buf + r12, 65536 - r12)
        xor     edi, edi
        lea     rsi, [buf + r12]
        mov     edx, 65536
        sub     rdx, r12
        jz      .find
        syscall
        test    rax, rax
        jle     .find
        add     r12, rax
        jmp     .read
.find:  xor     edx, edx                ; rdx = length up to the first newline
.scan:  cmp     rdx, r12
        jae     .write
        inc     rdx
        cmp     byte [buf + rdx - 1], 10
        jne     .scan
.write: mov     eax, 1
        mov     edi, 1
        lea     rsi, [buf]
        syscall
        mov     eax, 60
        xor     edi, edi
        syscall
