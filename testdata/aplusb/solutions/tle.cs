// Expected: TLE. Busy loop.
class Program {
    static void Main() {
        long x = 0;
        while (true) x = x * 31 + 7;
    }
}
