// bench_languages: the sieve of Eratosthenes with plain loops.
#include <iostream>
#include <vector>

int main()
{
    long long n, count = 0;
    std::cin >> n;
    std::vector<char> composite(n + 1, 0);
    for (long long i = 2; i <= n; i++)
        if (!composite[i]) {
            count++;
            for (long long j = i * i; j <= n; j += i)
                composite[j] = 1;
        }
    std::cout << count << "\n";
}
