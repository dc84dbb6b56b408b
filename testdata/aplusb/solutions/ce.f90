! Expected: CE: a character is not an integer.
program main
  implicit none
  integer :: a
  a = 'one'
  print *, a
end program main
