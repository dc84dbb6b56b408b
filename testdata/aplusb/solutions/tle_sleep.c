/* Expected: TLE (wall clock). Sleeps without using CPU, so only the
 * wall-time limit can stop it. */
#include <unistd.h>

int main(void)
{
    sleep(30);
    return 0;
}
