// Expected: WA. Int overflows on the big tests.
fun main() {
    val (a, b) = readLine()!!.trim().split(" ").map { it.toLong().toInt() }
    println(a + b)
}
