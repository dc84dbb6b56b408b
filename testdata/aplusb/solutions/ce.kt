// Expected: CE: an Int is not a String.
fun main() {
    val s: String = 42
    println(s)
}
