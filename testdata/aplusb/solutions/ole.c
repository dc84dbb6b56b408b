/* Expected: OLE. Prints forever; the output limit (1M here) stops it. */
#include <stdio.h>

int main(void)
{
    for (;;)
        puts("1111111111111111111111111111111111111111");
}
