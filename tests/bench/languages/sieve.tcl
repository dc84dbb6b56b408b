# bench_languages: the sieve of Eratosthenes with plain loops.
gets stdin n
set composite [lrepeat [expr {$n + 1}] 0]
set count 0
for {set i 2} {$i <= $n} {incr i} {
    if {![lindex $composite $i]} {
        incr count
        for {set j [expr {$i * $i}]} {$j <= $n} {incr j $i} { lset composite $j 1 }
    }
}
puts $count
