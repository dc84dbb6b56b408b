#lang racket
; Expected: AC.
(define a (read))
(define b (read))
(displayln (+ a b))
