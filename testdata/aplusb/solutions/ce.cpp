// Expected: CE. Missing semicolon and an undeclared name.
#include <iostream>

int main()
{
    long long a, b
    std::cin >> a >> b;
    std::cout << a + c << '\n';
}
