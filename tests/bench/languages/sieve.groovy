// bench_languages: the sieve of Eratosthenes with plain loops (typed
// locals, as contestants write them for speed).
int n = System.in.newReader().readLine().trim() as int
boolean[] composite = new boolean[n + 1]
int count = 0
for (int i = 2; i <= n; i++) {
    if (!composite[i]) {
        count++
        for (long j = (long) i * i; j <= n; j += i)
            composite[(int) j] = true
    }
}
println count
