// bench_languages: the sieve of Eratosthenes with plain loops.
import java.util.Scanner;

public class Main {
    public static void main(String[] args) {
        int n = new Scanner(System.in).nextInt();
        boolean[] composite = new boolean[n + 1];
        long count = 0;
        for (long i = 2; i <= n; i++)
            if (!composite[(int) i]) {
                count++;
                for (long j = i * i; j <= n; j += i)
                    composite[(int) j] = true;
            }
        System.out.println(count);
    }
}
