# bench_languages: the sieve of Eratosthenes with plain loops.
n = parseInt(require('fs').readFileSync(0, 'utf8').trim(), 10)
composite = new Uint8Array(n + 1)
count = 0
i = 2
while i <= n
  unless composite[i]
    count++
    j = i * i
    while j <= n
      composite[j] = 1
      j += i
  i++
console.log count
