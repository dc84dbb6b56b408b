;; Expected: AC.
(let ((a (read)) (b (read)))
  (format t "~D~%" (+ a b)))
