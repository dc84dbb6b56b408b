// bench_languages: the sieve of Eratosthenes with plain loops.
import std.stdio;

void main()
{
    long n;
    readf(" %d", &n);
    auto composite = new bool[n + 1];
    long count = 0;
    for (long i = 2; i <= n; i++)
        if (!composite[i]) {
            count++;
            for (long j = i * i; j <= n; j += i)
                composite[j] = true;
        }
    writeln(count);
}
