// Expected: CE (a missing parenthesis).
int main()
{
  array(int) v = (array(int)) (String.trim_all_whites(Stdio.stdin->gets()) / " " - ({ "" });
  write("%d\n", v[0] + v[1]);
  return 0;
}
