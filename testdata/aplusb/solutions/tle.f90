! Expected: TLE. A loop that never ends.
program main
  implicit none
  integer(8) :: x
  x = 1
  do while (x /= 0)
    x = x * 31 + 7
    if (x == 0) x = 1
  end do
  print *, x
end program main
