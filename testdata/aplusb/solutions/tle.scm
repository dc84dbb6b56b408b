; Expected: TLE. A loop that never ends.
(let loop ((x 0))
  (loop (+ x 1)))
