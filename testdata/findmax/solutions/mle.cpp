// Expected: MLE. Touches 1 GiB before answering: the submission's own
// memory limit holds in an interactive problem as in a batch one. The 64M
// limit is reached after 64 MiB of page faults, well inside the time limit.
#include <cstdio>
#include <cstdlib>
int main()
{
    long n;
    if (std::scanf("%ld", &n) != 1)
        return 1;
    size_t size = 1UL << 30;
    volatile char *p = static_cast<volatile char *>(std::malloc(size));
    long sum = 0;
    for (size_t i = 0; p && i < size; i += 4096)
        p[i] = 1, sum += p[i];
    std::printf("! %ld\n", sum);
    return 0;
}
