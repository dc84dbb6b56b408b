; Expected: WA: a - b.
(let* ((a (read)) (b (read)))
  (display (- a b))
  (newline))
