; Expected: CE (compile-file: an unbalanced parenthesis).
(let* ((a (read)) (b (read)))
  (display (+ a b))
  (newline)
