{ bench_languages: the sieve of Eratosthenes with plain loops. }
program sieve;
var
  n, i, j, count: int64;
  composite: array of boolean;
begin
  readln(n);
  setlength(composite, n + 1);
  count := 0;
  i := 2;
  while i <= n do
  begin
    if not composite[i] then
    begin
      inc(count);
      j := i * i;
      while j <= n do
      begin
        composite[j] := true;
        j := j + i;
      end;
    end;
    inc(i);
  end;
  writeln(count);
end.
