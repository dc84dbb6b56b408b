# Expected: AC. The first line of the input (GNU as, 32-bit x86, AT&T
# syntax, no libc).
        .bss
buf:    .skip   65536
        .text
        .globl  _start
_start:
        xor     %esi, %esi              # bytes read so far
1:      mov     $3, %eax                # read(0, buf + esi, 65536 - esi)
        xor     %ebx, %ebx
        lea     buf(%esi), %ecx
        mov     $65536, %edx
        sub     %esi, %edx
        jz      2f
        int     $0x80
        test    %eax, %eax
        jle     2f
        add     %eax, %esi
        jmp     1b
2:      xor     %edx, %edx              # edx = length up to the first newline
3:      cmp     %esi, %edx
        jae     4f
        inc     %edx
        cmpb    $10, buf-1(%edx)
        jne     3b
4:      mov     $4, %eax
        mov     $1, %ebx
        mov     $buf, %ecx
        int     $0x80
        mov     $1, %eax
        xor     %ebx, %ebx
        int     $0x80
