// Expected: TLE. Busy loop (volatile-like: the result is printed).
import std.stdio;

void main()
{
    ulong x = 1;
    for (ulong i = 0; i != ulong.max; i++)
        x = x * 31 + i;
    writeln(x);
}
