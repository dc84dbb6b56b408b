# Expected: CE (parse: an unbalanced parenthesis).
x <- scan(file("stdin"), quiet = TRUE
cat(x[1] + x[2], "\n")
