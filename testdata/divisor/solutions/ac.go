// Expected: AC. Prints a random-ish divisor: the largest one below sqrt(n).
package main

import (
	"bufio"
	"fmt"
	"os"
)

func main() {
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	var t int
	fmt.Fscan(in, &t)
	for ; t > 0; t-- {
		var n int64
		fmt.Fscan(in, &n)
		d := int64(-1)
		for i := int64(2); i*i <= n; i++ {
			if n%i == 0 {
				d = i
			}
		}
		fmt.Fprintln(out, d)
	}
}
