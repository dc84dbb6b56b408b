{ Expected: RE. Integer division by zero is run-time error 200. }
var
  n, z: longint;
begin
  readln(n);
  z := n - n;
  writeln(n div z);
end.
