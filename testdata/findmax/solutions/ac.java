// Expected: AC. Java with an explicit flush after every question.
import java.io.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out)));
        int n = Integer.parseInt(in.readLine().trim());
        long best = Long.MIN_VALUE;
        for (int i = 1; i <= n; i++) {
            out.println("? " + i);
            out.flush();
            best = Math.max(best, Long.parseLong(in.readLine().trim()));
        }
        out.println("! " + best);
        out.flush();
    }
}
