# Expected: WA: a - b.
gets stdin line
lassign $line a b
puts [expr {$a - $b}]
