// Expected: WA. int overflows on the big tests (unchecked).
using System;
class Program {
    static void Main() {
        var t = Console.ReadLine().Split(' ');
        Console.WriteLine(unchecked((int)long.Parse(t[0]) + (int)long.Parse(t[1])));
    }
}
