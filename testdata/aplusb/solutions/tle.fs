\ Expected: TLE. A loop that never ends.
: main 0 begin 1+ again ;
