// Expected: RE. An uncaught exception makes the JVM exit with status 1.
public class Main {
    public static void main(String[] args) {
        int[] a = new int[2];
        System.out.println(a[5]);
    }
}
