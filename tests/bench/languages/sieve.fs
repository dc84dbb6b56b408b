\ bench_languages: the sieve of Eratosthenes with plain loops.
create line 64 allot
: read-n ( -- n )
  line 64 stdin read-line throw drop line swap
  0 0 2swap >number 2drop d>s ;
: main
  read-n { n }
  n 1+ allocate throw { composite }
  composite n 1+ erase
  0 n 1+ 2 ?do
    composite i + c@ 0= if
      1+
      i i * n <= if n 1+ i i * ?do 1 composite i + c! j +loop then
    then
  loop . cr ;
