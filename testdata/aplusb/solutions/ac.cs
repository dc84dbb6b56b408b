// Expected: AC.
using System;
class Program {
    static void Main() {
        var t = Console.ReadLine().Split(new[] {' '}, StringSplitOptions.RemoveEmptyEntries);
        Console.WriteLine(long.Parse(t[0]) + long.Parse(t[1]));
    }
}
