# bench_languages: the sieve of Eratosthenes with plain loops (python3 and pypy3).
n = int(input())
composite = bytearray(n + 1)
count = 0
i = 2
while i <= n:
    if not composite[i]:
        count += 1
        j = i * i
        while j <= n:
            composite[j] = 1
            j += i
    i += 1
print(count)
