/* Sleeps far past any wall limit, using no CPU. */
#include <unistd.h>

int main(void)
{
    for (;;)
        sleep(100);
}
