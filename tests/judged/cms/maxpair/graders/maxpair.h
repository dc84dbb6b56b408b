#include <vector>
long long max_pair(std::vector<int> a);
