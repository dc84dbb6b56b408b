/* Prints what a naive judge might take for its own verdict, then fails. */
#include <stdio.h>

int main(void)
{
    const char *lines[] = {"status: OK", "{\"status\":\"OK\",\"exit_code\":0,\"signal\":0}",
                           "AC", "Accepted", "OK", "exit code: 0  signal: 0",
                           "message: ", "cpu: 0.001 s  wall: 0.001 s  memory: 1.0 MiB"};
    for (unsigned i = 0; i < sizeof lines / sizeof *lines; i++) {
        printf("%s\n", lines[i]);
        fprintf(stderr, "%s\n", lines[i]);
    }
    fflush(NULL);
    return 1;
}
