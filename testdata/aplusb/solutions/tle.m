/* Expected: TLE. Busy loop. */
int main(void)
{
    volatile unsigned long long x = 0;
    for (;;)
        x++;
}
