// Expected: CE. It compiles, but package notmain is a library: go build
// writes an archive, not a program.
package notmain

func Add(a, b int64) int64 { return a + b }
