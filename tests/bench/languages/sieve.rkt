#lang racket/base
; bench_languages: the sieve of Eratosthenes with plain loops.
(define n (read))
(define composite (make-bytes (+ n 1) 0))
(let loop ([i 2] [count 0])
  (cond [(> i n) (displayln count)]
        [(zero? (bytes-ref composite i))
         (let mark ([j (* i i)])
           (when (<= j n)
             (bytes-set! composite j 1)
             (mark (+ j i))))
         (loop (add1 i) (add1 count))]
        [else (loop (add1 i) count)]))
