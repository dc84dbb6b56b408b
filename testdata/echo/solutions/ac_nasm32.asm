; Expected: AC. The first line of the input (NASM, 32-bit x86, no libc).
section .bss
buf:    resb 65536
section .text
global _start
_start:
        xor     esi, esi                ; bytes read so far
.read:  mov     eax, 3                  ; read(0, buf + esi, 65536 - esi)
        xor     ebx, ebx
        lea     ecx, [buf + esi]
        mov     edx, 65536
        sub     edx, esi
        jz      .find
        int     0x80
        test    eax, eax
        jle     .find
        add     esi, eax
        jmp     .read
.find:  xor     edx, edx                ; edx = length up to the first newline
.scan:  cmp     edx, esi
        jae     .write
        inc     edx
        cmp     byte [buf + edx - 1], 10
        jne     .scan
.write: mov     eax, 4
        mov     ebx, 1
        mov     ecx, buf
        int     0x80
        mov     eax, 1
        xor     ebx, ebx
        int     0x80
