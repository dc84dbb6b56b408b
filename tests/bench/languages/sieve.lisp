;; bench_languages: the sieve of Eratosthenes with plain loops (typed, as
;; contestants declare them).
(let* ((n (read))
       (composite (make-array (1+ n) :element-type 'bit :initial-element 0))
       (count 0))
  (declare (fixnum n count) (type simple-bit-vector composite))
  (loop for i fixnum from 2 to n
        when (zerop (sbit composite i))
          do (incf count)
             (loop for j fixnum from (* i i) to n by i
                   do (setf (sbit composite j) 1)))
  (format t "~D~%" count))
