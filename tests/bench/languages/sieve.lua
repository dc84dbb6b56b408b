-- bench_languages: the sieve of Eratosthenes with plain loops.
local n = io.read("n")
local composite = {}
local count = 0
for i = 2, n do
  if not composite[i] then
    count = count + 1
    for j = i * i, n, i do composite[j] = true end
  end
end
print(count)
