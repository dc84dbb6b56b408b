# bench_languages: the sieve of Eratosthenes with plain loops (an array
# indexed by number: awk's only array; numbers are -M's GMP integers).
{
    n = $1 + 0
    count = 0
    for (i = 2; i <= n; i++)
        if (!(i in composite)) {
            count++
            for (j = i * i; j <= n; j += i)
                composite[j] = 1
        }
    print count
}
