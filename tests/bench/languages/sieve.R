# bench_languages: the sieve of Eratosthenes with plain loops (scalar
# loops, not R's vector operations: the same algorithm as every language).
con <- file("stdin")
n <- as.integer(readLines(con, n = 1))
close(con)
composite <- logical(n + 1)
count <- 0L
i <- 2L
while (i <= n) {
  if (!composite[i + 1L]) {
    count <- count + 1L
    j <- as.numeric(i) * i   # i * i overflows R's 32-bit integers
    while (j <= n) {
      composite[j + 1L] <- TRUE
      j <- j + i
    }
  }
  i <- i + 1L
}
cat(count, "\n", sep = "")
