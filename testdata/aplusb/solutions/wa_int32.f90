! Expected: WA. 32-bit integers overflow on the big tests.
program main
  implicit none
  integer(8) :: a, b
  read *, a, b
  print '(i0)', int(a, 4) + int(b, 4)
end program main
