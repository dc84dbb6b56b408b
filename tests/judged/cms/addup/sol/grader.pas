{ the task's grader in Pascal: the program; the contestant's unit is named after the task }
program grader;
uses addup;
var
  n, i: longint;
  values: array of longint;
begin
  read(n);
  setlength(values, n);
  for i := 0 to n - 1 do
    read(values[i]);
  writeln(addsum(n, values));
end.
