{ a Pascal submission is a unit the grader uses, named after the task }
unit addup;
interface
function addsum(n: longint; const values: array of longint): int64;
implementation
function addsum(n: longint; const values: array of longint): int64;
var
  i: longint;
  s: int64;
begin
  s := 0;
  for i := 0 to n - 1 do
    s := s + values[i];
  addsum := s;
end;
end.
