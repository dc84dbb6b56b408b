long long relay(long long x, int index);
