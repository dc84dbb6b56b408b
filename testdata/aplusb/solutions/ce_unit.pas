{ Expected: CE. fpc compiles a unit into main.ppu and links no program. }
unit main;

interface

function add(a, b: int64): int64;

implementation

function add(a, b: int64): int64;
begin
  add := a + b
end;

end.
