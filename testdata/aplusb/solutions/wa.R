# Expected: WA: the numbers read as doubles, which round past 2^53.
x <- scan(file("stdin"), quiet = TRUE)
cat(sprintf("%.0f", x[1] + x[2]), "\n", sep = "")
