;; Expected: CE (compile-file: a parenthesis is missing).
(let ((a (read)) (b (read)))
  (format t "~D~%" (+ a b))
