;; Expected: WA: a - b.
(let ((a (read)) (b (read)))
  (format t "~D~%" (- a b)))
