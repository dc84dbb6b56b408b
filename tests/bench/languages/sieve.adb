--  bench_languages: the sieve of Eratosthenes with plain loops.
with Ada.Text_IO; use Ada.Text_IO;
procedure Main is
   package LIO is new Ada.Text_IO.Integer_IO (Long_Long_Integer);
   type Flags is array (Long_Long_Integer range <>) of Boolean;
   type Flags_Access is access Flags;
   N, J, Count : Long_Long_Integer := 0;
   Composite : Flags_Access;
begin
   LIO.Get (N);
   Composite := new Flags'(0 .. N => False);
   for I in 2 .. N loop
      if not Composite (I) then
         Count := Count + 1;
         J := I * I;
         while J <= N loop
            Composite (J) := True;
            J := J + I;
         end loop;
      end if;
   end loop;
   LIO.Put (Count, Width => 0);
   New_Line;
end Main;
