// Expected: WA. int overflows on the big tests.
import std.stdio;

void main()
{
    long a, b;
    readf(" %d %d", &a, &b);
    writeln(cast(int) a + cast(int) b);
}
