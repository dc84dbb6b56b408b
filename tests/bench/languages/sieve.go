// bench_languages: the sieve of Eratosthenes with plain loops.
package main

import "fmt"

func main() {
	var n int64
	fmt.Scan(&n)
	composite := make([]bool, n+1)
	count := 0
	for i := int64(2); i <= n; i++ {
		if !composite[i] {
			count++
			for j := i * i; j <= n; j += i {
				composite[j] = true
			}
		}
	}
	fmt.Println(count)
}
