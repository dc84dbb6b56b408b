\ Expected: WA: a - b. Reads one line, two signed numbers (a cell is 64 bits).
create line 256 allot
: parse-int ( c-addr u -- n )
  over c@ [char] - = dup >r if 1 /string then
  0 0 2swap >number 2drop d>s r> if negate then ;
: next-word ( c-addr u -- c-addr' u' word-addr word-u )
  begin dup if over c@ bl <= else 0 then while 1 /string repeat
  2dup begin dup if over c@ bl > else 0 then while 1 /string repeat
  2swap 2 pick - ;
: main
  line 256 stdin read-line throw drop line swap
  next-word parse-int >r next-word parse-int r> - . cr 2drop ;
