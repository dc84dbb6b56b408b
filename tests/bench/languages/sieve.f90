! bench_languages: the sieve of Eratosthenes with plain loops.
program sieve
  implicit none
  integer(8) :: n, i, j, cnt
  logical(1), allocatable :: composite(:)
  read *, n
  allocate(composite(0:n))
  composite = .false.
  cnt = 0
  do i = 2, n
    if (.not. composite(i)) then
      cnt = cnt + 1
      j = i * i
      do while (j <= n)
        composite(j) = .true.
        j = j + i
      end do
    end if
  end do
  print '(i0)', cnt
end program sieve
