// bench_languages: the sieve of Eratosthenes with plain loops.
using System;
class Program {
    static void Main() {
        long n = long.Parse(Console.ReadLine().Trim());
        var composite = new bool[n + 1];
        long count = 0;
        for (long i = 2; i <= n; i++)
            if (!composite[i]) {
                count++;
                for (long j = i * i; j <= n; j += i)
                    composite[j] = true;
            }
        Console.WriteLine(count);
    }
}
