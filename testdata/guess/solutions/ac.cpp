// Expected: AC. Binary search; std::endl flushes after every question.
#include <iostream>
#include <string>
int main()
{
    long n, q;
    std::cin >> n >> q;
    long lo = 1, hi = n;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        std::cout << "? " << mid << std::endl;
        std::string r;
        std::cin >> r;
        if (r == "=") { lo = hi = mid; break; }
        if (r == "<") hi = mid - 1; else lo = mid + 1;
    }
    std::cout << "! " << lo << std::endl;
}
