# Expected: CE (unbalanced braces: info complete).
gets stdin line
lassign $line a b
puts [expr {$a + $b}
