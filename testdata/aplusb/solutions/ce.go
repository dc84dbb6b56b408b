// Expected: CE. Go refuses unused imports and variables.
package main

import (
	"fmt"
	"os"
)

func main() {
	x := 1
	fmt.Println(3)
}
