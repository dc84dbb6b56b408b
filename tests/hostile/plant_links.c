/* Leaves, in the work directory it was given (its cwd), traps for whoever
 * reuses that directory as root after it:
 *   plant_links symlink NAME TARGET   NAME becomes a symlink to TARGET (a
 *                                     host path the next run may follow)
 *   plant_links fifo NAME             NAME becomes a FIFO (opening it for
 *                                     writing blocks until a reader comes)
 * Whatever NAME was (a file the caller wrote there) is removed first. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "symlink")) {
        unlink(argv[2]);
        if (symlink(argv[3], argv[2]) < 0)
            return perror("symlink"), 1;
        return 0;
    }
    if (argc == 3 && !strcmp(argv[1], "fifo")) {
        unlink(argv[2]);
        if (mkfifo(argv[2], 0666) < 0)
            return perror("mkfifo"), 1;
        return 0;
    }
    fprintf(stderr, "usage: plant_links symlink NAME TARGET | fifo NAME\n");
    return 2;
}
