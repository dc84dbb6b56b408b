# syscalls32: a 32-bit x86 program (i386 system calls through int 0x80, no
# libc), as a nasm32 or gas32 submission is, trying what the i386 profile
# must refuse. argv[1] names the attempt:
#   hello      write "hello32" (the i386 ABI works at all)
#   fork_bomb  fork forever, parent and children alike
#   inet       socket(AF_INET): prints "inet EACCES" when refused so
#   socketcall socket(AF_INET) through the socketcall multiplexer
#   ptrace mount umount unshare clone_newnet flock lock64 ipc vm86 keyctl
#   io_uring cachestat   one forbidden call each (int 0x80)
#   fallocate  fallocate(stdout, FALLOC_FL_KEEP_SIZE, 0, 256 MiB): disk
#              blocks beyond the file's size, which RLIMIT_FSIZE never sees
#   exec64     execve of a 64-bit program (/hostile/syscalls ptrace): the
#              filter stays, so its 64-bit ptrace is refused too
# A call that returns prints "<mode> returned" (never expected but hello's
# and inet's).
        .intel_syntax noprefix
        .data
hello_s:    .asciz "hello32\n"
inet_ok:    .asciz "inet EACCES\n"
returned:   .asciz " returned\n"
prog64:     .asciz "/hostile/syscalls"
arg_ptrace: .asciz "ptrace"
argv64:     .long prog64, arg_ptrace, 0
sock_args:  .long 2, 1, 0                     # AF_INET, SOCK_STREAM, 0
flock_buf:  .skip 32
        # mode name, then the handler
modes:      .long m_hello, do_hello, m_fork, do_fork, m_inet, do_inet
            .long m_socketcall, do_socketcall, m_exec64, do_exec64
            .long m_ptrace, do_ptrace, m_mount, do_mount, m_unshare, do_unshare
            .long m_clone, do_clone, m_flock, do_flock, m_lock64, do_lock64
            .long m_ipc, do_ipc, m_vm86, do_vm86, m_keyctl, do_keyctl
            .long m_io_uring, do_io_uring, m_cachestat, do_cachestat
            .long m_fallocate, do_fallocate, m_umount, do_umount, 0
m_hello:    .asciz "hello"
m_fork:     .asciz "fork_bomb"
m_inet:     .asciz "inet"
m_socketcall: .asciz "socketcall"
m_exec64:   .asciz "exec64"
m_ptrace:   .asciz "ptrace"
m_mount:    .asciz "mount"
m_unshare:  .asciz "unshare"
m_clone:    .asciz "clone_newnet"
m_flock:    .asciz "flock"
m_lock64:   .asciz "lock64"
m_ipc:      .asciz "ipc"
m_vm86:     .asciz "vm86"
m_keyctl:   .asciz "keyctl"
m_io_uring: .asciz "io_uring"
m_cachestat: .asciz "cachestat"
m_fallocate: .asciz "fallocate"
m_umount:   .asciz "umount"

        .text
        .globl  _start
# write(1, esi, strlen(esi))
puts:
        mov     edx, esi
1:      cmp     byte ptr [edx], 0
        je      2f
        inc     edx
        jmp     1b
2:      sub     edx, esi
        mov     eax, 4
        mov     ebx, 1
        mov     ecx, esi
        int     0x80
        ret

_start:
        cmp     dword ptr [esp], 2             # argc
        jb      fail
        mov     edi, [esp + 8]                 # argv[1]
        lea     ebp, [modes]
next_mode:
        mov     esi, [ebp]
        test    esi, esi
        jz      fail
        mov     ecx, edi
1:      mov     al, [esi]                      # compare esi with argv[1]
        cmp     al, [ecx]
        jne     2f
        test    al, al
        jz      found
        inc     esi
        inc     ecx
        jmp     1b
2:      add     ebp, 8
        jmp     next_mode
found:  jmp     [ebp + 4]

# the call returned: say so, exit 0
came_back:
        mov     esi, edi
        call    puts
        lea     esi, [returned]
        call    puts
exit0:  mov     eax, 1
        xor     ebx, ebx
        int     0x80
fail:   mov     eax, 1
        mov     ebx, 2
        int     0x80

do_hello:
        lea     esi, [hello_s]
        call    puts
        jmp     exit0
do_fork:
        mov     eax, 2                         # fork
        int     0x80
        jmp     do_fork
do_inet:
        mov     eax, 359                       # socket(AF_INET, SOCK_STREAM, 0)
        mov     ebx, 2
        mov     ecx, 1
        xor     edx, edx
        int     0x80
        cmp     eax, -13                       # -EACCES
        jne     came_back
        lea     esi, [inet_ok]
        call    puts
        jmp     exit0
do_socketcall:
        mov     eax, 102                       # socketcall(SYS_SOCKET, args)
        mov     ebx, 1
        lea     ecx, [sock_args]
        int     0x80
        jmp     came_back
do_exec64:
        mov     eax, 11                        # execve(prog64, argv64, NULL)
        lea     ebx, [prog64]
        lea     ecx, [argv64]
        xor     edx, edx
        int     0x80
        jmp     came_back
do_ptrace:
        mov     eax, 26                        # ptrace(PTRACE_TRACEME)
        xor     ebx, ebx
        int     0x80
        jmp     came_back
do_mount:
        mov     eax, 21                        # mount(0, 0, 0, 0, 0)
        xor     ebx, ebx
        xor     ecx, ecx
        xor     edx, edx
        int     0x80
        jmp     came_back
do_unshare:
        mov     eax, 310                       # unshare(CLONE_NEWUSER)
        mov     ebx, 0x10000000
        int     0x80
        jmp     came_back
do_clone:
        mov     eax, 120                       # clone(CLONE_NEWNET | SIGCHLD, 0)
        mov     ebx, 0x40000011
        xor     ecx, ecx
        xor     edx, edx
        int     0x80
        test    eax, eax
        jz      exit0                          # the child, were it made
        jmp     came_back
do_flock:
        mov     eax, 143                       # flock(0, LOCK_EX)
        xor     ebx, ebx
        mov     ecx, 2
        int     0x80
        jmp     came_back
do_lock64:
        mov     eax, 221                       # fcntl64(0, F_SETLK64, &lock)
        xor     ebx, ebx
        mov     ecx, 13
        lea     edx, [flock_buf]
        int     0x80
        jmp     came_back
do_ipc:
        mov     eax, 117                       # ipc(SHMGET, IPC_PRIVATE, 4096, IPC_CREAT)
        mov     ebx, 23
        xor     ecx, ecx
        mov     edx, 4096
        mov     esi, 0x200
        int     0x80
        jmp     came_back
do_vm86:
        mov     eax, 166                       # vm86(0, 0)
        xor     ebx, ebx
        xor     ecx, ecx
        int     0x80
        jmp     came_back
do_keyctl:
        mov     eax, 288                       # keyctl(KEYCTL_GET_KEYRING_ID, ...)
        xor     ebx, ebx
        mov     ecx, -3
        xor     edx, edx
        int     0x80
        jmp     came_back
do_io_uring:
        mov     eax, 425                       # io_uring_setup(1, 0)
        mov     ebx, 1
        xor     ecx, ecx
        int     0x80
        jmp     came_back
do_cachestat:
        mov     eax, 451                       # cachestat(0, 0, 0, 0)
        xor     ebx, ebx
        xor     ecx, ecx
        xor     edx, edx
        xor     esi, esi
        int     0x80
        jmp     came_back
do_fallocate:
        mov     eax, 324                       # fallocate(1, KEEP_SIZE, 0, 256 MiB)
        mov     ebx, 1
        mov     ecx, 1
        xor     edx, edx                       # offset, low and high halves
        xor     esi, esi
        mov     edi, 0x10000000                # length, low and high halves
        xor     ebp, ebp
        int     0x80
        jmp     came_back
do_umount:
        mov     eax, 22                        # umount(0): the old one, i386 only
        xor     ebx, ebx
        int     0x80
        jmp     came_back
