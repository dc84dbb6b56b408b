#lang racket/base
; Expected: TLE. A loop that never ends.
(let loop ([x 0])
  (loop (add1 x)))
