// The function a submission to "sumarray" defines.
#include <vector>
long long sum_array(const std::vector<int> &a);
