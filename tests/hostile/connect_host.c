/* connect_host PORT ABSTRACT: tries to reach the host: TCP to 127.0.0.1:PORT
 * and [::1]:PORT, and the abstract unix socket "@ABSTRACT". Prints
 *   tcp4 <CONNECTED|errno>, tcp6 ..., unix ... and exits 0. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static void report(const char *what, int s, int rc)
{
    if (rc == 0)
        printf("%s CONNECTED\n", what);
    else
        printf("%s %s\n", what, strerrorname_np(errno));
    if (s >= 0)
        close(s);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    int port = atoi(argv[1]);
    struct sockaddr_in a4 = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &a4.sin_addr);
    int s = socket(AF_INET, SOCK_STREAM, 0);
    report("tcp4", s, s < 0 ? -1 : connect(s, (struct sockaddr *)&a4, sizeof a4));

    struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port)};
    inet_pton(AF_INET6, "::1", &a6.sin6_addr);
    s = socket(AF_INET6, SOCK_STREAM, 0);
    report("tcp6", s, s < 0 ? -1 : connect(s, (struct sockaddr *)&a6, sizeof a6));

    struct sockaddr_un un = {.sun_family = AF_UNIX};
    size_t n = strlen(argv[2]);
    if (n > sizeof un.sun_path - 2)
        return 2;
    memcpy(un.sun_path + 1, argv[2], n);
    s = socket(AF_UNIX, SOCK_STREAM, 0);
    report("unix", s, s < 0 ? -1 : connect(s, (struct sockaddr *)&un,
                                           (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)));
    /* an outside address too: there must be no route at all */
    struct sockaddr_in out = {.sin_family = AF_INET, .sin_port = htons(53)};
    inet_pton(AF_INET, "1.1.1.1", &out.sin_addr);
    s = socket(AF_INET, SOCK_STREAM, 0);
    report("outside", s, s < 0 ? -1 : connect(s, (struct sockaddr *)&out, sizeof out));
    return 0;
}
