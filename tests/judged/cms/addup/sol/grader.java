// the task's grader in Java: the contestant's class is named after the task
import java.io.*;
import java.util.*;
public class grader {
    public static void main(String[] args) throws IOException {
        BufferedReader r = new BufferedReader(new InputStreamReader(System.in));
        StreamTokenizer t = new StreamTokenizer(r);
        t.nextToken();
        int n = (int) t.nval;
        int[] v = new int[n];
        for (int i = 0; i < n; i++) { t.nextToken(); v[i] = (int) t.nval; }
        System.out.println(new addup().addup(n, v));
    }
}
