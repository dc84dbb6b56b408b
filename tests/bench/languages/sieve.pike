// bench_languages: the sieve of Eratosthenes with plain loops (an array
// of int, as contestants write it: a string written byte by byte took 6.5 s
// here where the array took 2.0 s).
int main()
{
  int n = (int) String.trim_all_whites(Stdio.stdin->gets());
  array(int) composite = allocate(n + 1);
  int count = 0;
  for (int i = 2; i <= n; i++)
    if (composite[i] == 0) {
      count++;
      for (int j = i * i; j <= n; j += i)
        composite[j] = 1;
    }
  write("%d\n", count);
  return 0;
}
