// Expected: TLE. A loop that never ends.
int main()
{
  int x = 0;
  while (1) x++;
  return 0;
}
