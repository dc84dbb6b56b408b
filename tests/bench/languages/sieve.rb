# bench_languages: the sieve of Eratosthenes with plain loops.
n = gets.to_i
composite = "\0".b * (n + 1)
count = 0
i = 2
while i <= n
  if composite.getbyte(i) == 0
    count += 1
    j = i * i
    while j <= n
      composite.setbyte(j, 1)
      j += i
    end
  end
  i += 1
end
puts count
