;; Expected: TLE. A loop that never ends.
(let ((x 0))
  (declare (fixnum x))
  (loop (setf x (logand (+ (* x 31) 7) #xffffff))))
