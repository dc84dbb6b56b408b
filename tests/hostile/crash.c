/* crash MODE: segv (null write), abort, fpe (integer division by zero),
 * exit42 (plain non-zero exit). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    if (!strcmp(argv[1], "segv")) {
        volatile int *p = NULL;
        *p = 1;
    }
    if (!strcmp(argv[1], "abort"))
        abort();
    if (!strcmp(argv[1], "fpe")) {
        int zero = 0, one = 1;
        __asm__ volatile("cltd; idivl %1" : "+a"(one) : "r"(zero) : "edx");
        return one;
    }
    if (!strcmp(argv[1], "exit42"))
        exit(42);
    return 2;
}
