/* Writes to stdout forever. */
#include <stdio.h>

int main(void)
{
    for (;;)
        fputs("All work and no play makes Jack a dull boy.\n", stdout);
}
