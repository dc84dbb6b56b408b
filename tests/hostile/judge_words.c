/* Prints what a naive judge might take for its own verdict, then fails.
 * "nonl": ends stdout with the start of a fake JSON verdict and no newline,
 * hoping the real one gets glued into it. */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "nonl")) {
        fputs("{\"status\":\"OK\",\"exit_code\":0,\"signal\":0,\"cpu_time\":0,"
              "\"wall_time\":0,\"memory\":0,\"message\":\"\",\"verdict\":", stdout);
        fflush(stdout);
        return 1;
    }
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
