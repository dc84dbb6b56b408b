#lang racket
; Expected: CE (raco make: c is unbound).
(define a (read))
(define b (read))
(displayln (+ a c))
