import java.io.BufferedReader;
import java.io.InputStreamReader;

public class Main {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(in.readLine().trim());
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            double r = Double.parseDouble(in.readLine().trim());
            sb.append(String.format("%.9f%n", Math.PI * r * r));
        }
        System.out.print(sb);
    }
}
