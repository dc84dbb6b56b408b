# Expected: WA: a - b.
a, b = gets.split.map(&:to_i)
puts a - b
