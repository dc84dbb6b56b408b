# Expected: AC.
# R's numbers are doubles (exact to 2^53) and its integers 32-bit: the
# numbers are split into their last 9 digits and the rest, each exact.
parts <- function(s) {
  neg <- startsWith(s, "-")
  d <- sub("^[-+]", "", s)
  n <- nchar(d)
  hi <- if (n > 9) as.numeric(substr(d, 1, n - 9)) else 0
  lo <- as.numeric(substr(d, max(1, n - 8), n))
  if (neg) -c(hi, lo) else c(hi, lo)
}
x <- scan(file("stdin"), what = "", n = 2, quiet = TRUE)
s <- parts(x[1]) + parts(x[2])
hi <- s[1] + s[2] %/% 1e9
lo <- s[2] %% 1e9
if (hi < 0 && lo > 0) {
  hi <- hi + 1
  lo <- 1e9 - lo
}
if (hi == 0) {
  cat(sprintf("%.0f", if (s[1] + s[2] / 1e9 < 0) -lo else lo), "\n", sep = "")
} else {
  cat(sprintf("%.0f%09.0f", hi, abs(lo)), "\n", sep = "")
}
