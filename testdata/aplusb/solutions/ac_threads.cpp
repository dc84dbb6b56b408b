// Expected: AC. Four std::threads each add a quarter of a + b: threads
// work in C++ (the box limits processes and threads together, at 32).
#include <atomic>
#include <iostream>
#include <thread>
#include <vector>

int main()
{
    long long a, b;
    if (!(std::cin >> a >> b))
        return 1;
    std::atomic<long long> sum{0};
    long long parts[4] = {a / 2, a - a / 2, b / 2, b - b / 2};
    std::vector<std::thread> workers;
    for (long long p : parts)
        workers.emplace_back([&sum, p] { sum += p; });
    for (auto &t : workers)
        t.join();
    std::cout << sum.load() << "\n";
}
