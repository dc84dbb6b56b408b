# wrong: prints the first number, not the sum
s/ .*//
