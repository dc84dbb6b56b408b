#lang racket
; Expected: WA: a - b.
(define a (read))
(define b (read))
(displayln (- a b))
