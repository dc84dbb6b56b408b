// Expected: PE. Answers only the first number.
import java.util.Scanner;

public class Main {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        in.nextInt();
        long n = in.nextLong();
        long d = -1;
        for (long i = 2; i * i <= n; i++)
            if (n % i == 0) { d = i; break; }
        System.out.println(d);
    }
}
