// Expected: CE: an int is not a string.
class Program {
    static void Main() {
        string s = 42;
        System.Console.WriteLine(s);
    }
}
