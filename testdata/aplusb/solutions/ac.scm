; Expected: AC.
(let* ((a (read)) (b (read)))
  (display (+ a b))
  (newline))
