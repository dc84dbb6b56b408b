! Expected: AC.
program main
  implicit none
  integer(8) :: a, b
  read *, a, b
  print '(i0)', a + b
end program main
