--  Expected: CE: a string is not an integer.
procedure Main is
   A : Integer := "one";
begin
   null;
end Main;
