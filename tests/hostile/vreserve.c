/* Reserves 16 GiB of address space and touches only 1 MiB of it: resident
 * memory is what is limited, not address space. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

int main(void)
{
    size_t size = 16UL << 30;
    char *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    memset(p, 1, 1 << 20);
    printf("reserved %zu\n", size);
    return 0;
}
