// Expected: AC. iostreams are fast once unsynchronised from stdio.
#include <iostream>

int main()
{
    std::ios::sync_with_stdio(false);
    std::cin.tie(nullptr);
    long long n, x, sum = 0;
    std::cin >> n;
    while (n-- > 0 && std::cin >> x)
        sum += x;
    std::cout << sum << '\n';
}
