// the class named after the task, as CMS names a Java submission
public class addup {
    long addup(int n, int[] values) {
        long s = 0;
        for (int i = 0; i < n; i++) s += values[i];
        return s;
    }
}
