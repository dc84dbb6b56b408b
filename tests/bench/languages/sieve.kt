// bench_languages: the sieve of Eratosthenes with plain loops.
fun main() {
    val n = readLine()!!.trim().toInt()
    val composite = BooleanArray(n + 1)
    var count = 0L
    var i = 2L
    while (i <= n) {
        if (!composite[i.toInt()]) {
            count++
            var j = i * i
            while (j <= n) {
                composite[j.toInt()] = true
                j += i
            }
        }
        i++
    }
    println(count)
}
