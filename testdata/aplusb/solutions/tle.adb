--  Expected: TLE. A loop that never ends.
with Ada.Text_IO;
procedure Main is
   X : Long_Long_Integer := 1;
begin
   loop
      X := (X * 31 + 7) mod 1_000_000_007;
      exit when X = -1;
   end loop;
   Ada.Text_IO.Put_Line (Long_Long_Integer'Image (X));
end Main;
